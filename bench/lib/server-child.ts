/**
 * Child-process entry of the benchmark: runs the local server (the DynamoDB at DYNAMODB_ENDPOINT, or its own DynamoDB
 * Local without it; the embedded index under DATA_DIR) and answers the parent over IPC, so the server's CPU and memory are its own, apart from the load
 * generator's. Messages in: `{ type: 'rss' }`, `{ type: 'stop' }`. Out: `{ type: 'ready', url, dynamoEndpoint }`,
 * `{ type: 'rss', rss }`, `{ type: 'error', message }`.
 */
import { loadConfig } from '@memgate/adapters';
import { createJsonLogger } from '@memgate/http';
import { startLocalServer } from '@memgate/local/server';

const send = (message: unknown) => process.send?.(message);

try {
  const config = loadConfig(process.env);
  const running = await startLocalServer(config, createJsonLogger({ level: config.LOG_LEVEL }));
  process.on('message', (message: { type?: string }) => {
    if (message.type === 'rss') send({ type: 'rss', rss: process.memoryUsage().rss });
    if (message.type === 'stop') {
      void running.stop().finally(() => process.exit(0));
    }
  });
  process.on('disconnect', () => void running.stop().finally(() => process.exit(0)));
  send({ type: 'ready', url: running.url, dynamoEndpoint: running.dynamoEndpoint });
} catch (error) {
  send({ type: 'error', message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
}
