export {
  createJsonLogger,
  type LogFields,
  type Logger,
  type LogLevel,
  redactSecrets,
  redactValue,
  silentLogger,
} from './logger.ts';
export { loggedRequestId, type RequestIdOf, requestLog } from './request-log.ts';
