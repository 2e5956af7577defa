import { lambda } from './functions.ts';

/**
 * DESIGN.md section 6: every 15 minutes. The handler stops starting work 20 s before this timeout and the next
 * run continues, so a backlog never makes a run fail half-way.
 */
export const cleanup = lambda('Cleanup', {
  bundle: 'cleanup',
  memory: '512 MB',
  timeout: '5 minutes',
  secrets: ['pineconeApiKey', 'embeddingsApiKey'],
});

export const cleanupSchedule = new sst.aws.Cron('CleanupSchedule', {
  schedule: 'rate(15 minutes)',
  function: cleanup.arn,
});
