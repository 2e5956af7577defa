import type { Context, ScheduledEvent } from 'aws-lambda';
import { cleanupJob } from './runtime/cleanup-job.ts';

const runCleanup = cleanupJob();

/** EventBridge schedule (every 15 minutes): one bounded cleanup run; the counts go to the log and the result. */
export const handler = (_event: ScheduledEvent, context: Pick<Context, 'getRemainingTimeInMillis'>) =>
  runCleanup(context);
