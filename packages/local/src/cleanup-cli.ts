import { createDocumentClient, ensureTable, loadConfig } from '@memgate/adapters';
import { createCleanupServices } from '@memgate/adapters/services/cleanup';
import { systemClock } from '@memgate/core';
import { createJsonLogger } from '@memgate/http';
import { startUnderLock } from './data-dir-lock.ts';
import { startDynamoLocal } from './dynamo-local.ts';
import { createLocalVectorIndex, denseGraphFor } from './vector-index/index.ts';

/**
 * `npm run cleanup [-- --max-seconds N]`: one cleanup run on the local data (DESIGN.md section 6). It opens
 * DATA_DIR's DynamoDB Local and vector index itself, so run it while `npm start` is stopped: it refuses a DATA_DIR
 * another live process holds. Prints the counts as JSON.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createJsonLogger({ level: config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL });
  const flag = process.argv.indexOf('--max-seconds');
  const maxSeconds = flag > 0 ? Number(process.argv[flag + 1]) : 300;
  if (!Number.isFinite(maxSeconds) || maxSeconds <= 0) throw new Error('--max-seconds needs a positive number');

  // Refused while `npm start` holds the same DATA_DIR: one writer at a time (data-dir-lock.ts).
  const { lock, started: dynamo } = await startUnderLock(config.DATA_DIR, async () =>
    config.DYNAMODB_ENDPOINT ? undefined : startDynamoLocal({ dataDir: config.DATA_DIR }),
  );
  const documentClient = createDocumentClient({ endpoint: config.DYNAMODB_ENDPOINT ?? dynamo?.endpoint });
  const vectorIndex = await createLocalVectorIndex({
    dir: `${config.DATA_DIR}/vectors`,
    denseGraph: denseGraphFor(config.EMBEDDINGS),
  });
  try {
    await ensureTable(documentClient, config.TABLE_NAME, (message, fields) => logger.info(message, fields));
    const cleanup = createCleanupServices({
      config,
      documentClient,
      tableName: config.TABLE_NAME,
      vectorIndex,
      clock: systemClock,
      log: (level, message, fields) => logger[level](message, fields),
    });
    const report = await cleanup.run(new Date(Date.now() + maxSeconds * 1000));
    console.log(JSON.stringify(report));
  } finally {
    await vectorIndex.close();
    documentClient.destroy();
    await dynamo?.stop();
    lock.release();
  }
}

main().catch((error: unknown) => {
  console.error(`cleanup failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
