import { createCleanupServices } from '@memgate/adapters/services/cleanup';
import type { CleanupReport } from '@memgate/core';
import type { Context } from 'aws-lambda';
import { awsRuntime } from './aws.ts';

/** Time left for the run to finish what it started and report, after it stops starting new work. */
export const CLEANUP_MARGIN_MS = 20_000;

/** The cleanup run of this Lambda instance, bounded by the invocation's remaining time. */
export function cleanupJob(): (context: Pick<Context, 'getRemainingTimeInMillis'>) => Promise<CleanupReport> {
  const runtime = awsRuntime();
  const services = createCleanupServices(runtime.inputs);
  return async function runScheduledCleanup(context) {
    // The run's log lines carry the invocation's request id and cold-start flag (a full Lambda context has them).
    if ('awsRequestId' in context) runtime.observability.powertools.addContext(context as Context);
    const remainingMs = context.getRemainingTimeInMillis();
    const deadline = new Date(Date.now() + Math.max(0, remainingMs - CLEANUP_MARGIN_MS));
    return services.run(deadline);
  };
}
