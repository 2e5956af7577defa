import { loadConfig } from '@memgate/adapters';
import { createJsonLogger } from '@memgate/http';
import { JavaMissingError } from './dynamo-local.ts';
import { type RunningServer, startLocalServer } from './server.ts';

/** A bad setting stops the start with one line naming it (never its value), not a stack trace. */
function configOrExit() {
  try {
    return loadConfig();
  } catch (error) {
    console.error(`memgate failed to start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}

async function main(): Promise<void> {
  const config = configOrExit();
  const logger = createJsonLogger({ level: config.LOG_LEVEL });
  let running: RunningServer | undefined;
  let stopping = false;
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await running?.stop().catch(() => {});
    process.exit(code);
  };
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));
  process.on('uncaughtException', (error) => {
    logger.error('uncaught exception', { error: error.message, stack: error.stack });
    void shutdown(1);
  });
  process.on('unhandledRejection', (reason) => {
    logger.error('unhandled rejection', { error: String(reason) });
  });

  try {
    running = await startLocalServer(config, logger);
  } catch (error) {
    if (error instanceof JavaMissingError) {
      console.error(error.message);
      process.exit(1);
    }
    console.error(`memgate failed to start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  console.log(
    [
      `memgate listening on ${running.url}`,
      `  API reference: ${running.url}/docs   OpenAPI: ${running.url}/api/v1/openapi.json`,
      `  DynamoDB: ${running.dynamoEndpoint}   data: ${config.DATA_DIR}`,
      '  get a token: npm run token -- --user alice --orgs acme',
    ].join('\n'),
  );
}

void main();
