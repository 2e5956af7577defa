export { createJsonLogger, type LogFields, type Logger, type LogLevel, redactSecrets, silentLogger } from './logger.ts';
export { requestLog } from './request-log.ts';
