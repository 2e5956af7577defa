import { createCleanupServices } from '@memgate/adapters/services/cleanup';
import type { CleanupReport } from '@memgate/core';
import { awsRuntime } from './aws.ts';

/** Time left for the run to finish what it started and report, after it stops starting new work. */
export const CLEANUP_MARGIN_MS = 20_000;

/** The cleanup run of this Lambda instance, bounded by the invocation's remaining time. */
export function cleanupJob(): (remainingMs: number) => Promise<CleanupReport> {
  const runtime = awsRuntime();
  const services = createCleanupServices(runtime.inputs);
  return async function runScheduledCleanup(remainingMs) {
    const deadline = new Date(Date.now() + Math.max(0, remainingMs - CLEANUP_MARGIN_MS));
    return services.run(deadline);
  };
}
