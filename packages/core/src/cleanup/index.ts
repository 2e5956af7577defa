import { sweepOrphanVectors } from './orphans.ts';
import type { CleanupOptions, CleanupReport } from './ports.ts';
import { createSettler } from './settle.ts';

export type { CleanupLog, CleanupOptions, CleanupReport, ExpiringItems } from './ports.ts';
export { vectorItemOf } from './vectors.ts';

const FIVE_MINUTES = 5 * 60 * 1000;

/**
 * One cleanup run (DESIGN.md section 6): settles unsettled records, removes expired sessions, then sweeps orphan
 * vectors. Idempotent and safe beside a concurrent run; stops starting work at `deadline` and reports counts.
 */
export async function runCleanup({
  sessions,
  log,
  staleAfterMs = FIVE_MINUTES,
  maxAttempts = 3,
  pageSize = 100,
  embeddingTextOf = (record) => record.text,
  lexical = true,
  ...required
}: CleanupOptions): Promise<CleanupReport> {
  const { repository, index, clock, deadline } = required;
  const report: CleanupReport = {
    reindexed: 0,
    failed: 0,
    deletedRecords: 0,
    deletedVectors: 0,
    orphanVectors: 0,
    expiredSessions: 0,
    complete: false,
  };
  const hasTime = () => clock.now().getTime() < deadline.getTime();
  const settings = { ...required, log, staleAfterMs, maxAttempts, pageSize, embeddingTextOf, lexical };

  async function step(name: string, run: () => Promise<boolean>): Promise<boolean> {
    try {
      return await run();
    } catch (error) {
      // One failing part (e.g. the vector store down) does not keep the others from running.
      log?.('error', `cleanup: ${name} failed`, { error: error instanceof Error ? error.message : String(error) });
      return false;
    }
  }

  const settled = await step('settling records', async () => {
    const settlePage = createSettler(settings, report);
    const before = new Date(clock.now().getTime() - staleAfterMs).toISOString();
    let cursor: string | undefined;
    do {
      if (!hasTime()) return false;
      const page = await repository.listUnsettled({ before, limit: pageSize, ...(cursor ? { cursor } : {}) });
      await settlePage(page.items);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return true;
  });

  const expired = await step('expiring sessions', async () => {
    if (!sessions) return true;
    const now = clock.now().toISOString();
    let cursor: string | undefined;
    do {
      if (!hasTime()) return false;
      const page = await sessions.listExpired({ before: now, limit: pageSize, ...(cursor ? { cursor } : {}) });
      if (page.items.length > 0) await sessions.delete(page.items);
      report.expiredSessions += page.items.length;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return true;
  });

  const swept = await step('sweeping orphan vectors', async () => {
    const staleBefore = new Date(clock.now().getTime() - staleAfterMs).toISOString();
    const result = await sweepOrphanVectors({
      repository,
      index,
      embedder: required.embedder,
      pageSize,
      hasTime,
      staleBefore,
    });
    report.orphanVectors = result.deleted;
    return result.complete;
  });

  report.complete = settled && expired && swept;
  log?.('info', 'cleanup finished', { ...report });
  return report;
}
