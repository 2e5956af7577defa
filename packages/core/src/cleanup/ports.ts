import type { Clock } from '../clock.ts';
import type { ContextRepository, Embedder, VectorIndex } from '../context/ports.ts';
import type { ContextRecord, Page } from '../context/record.ts';

/** Items that carry an expiry (chat sessions, replays): the cleanup deletes those past it. */
export interface ExpiringItems {
  /** Ids of items whose expiry is before `before` (ISO), oldest first. */
  listExpired(options: { before: string; cursor?: string; limit: number }): Promise<Page<string>>;
  /** Deleting ids that no longer exist is not an error. */
  delete(ids: readonly string[]): Promise<void>;
}

export type CleanupLog = (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;

export interface CleanupOptions {
  repository: ContextRepository;
  index: VectorIndex;
  /** Re-embeds the text of chunks left unindexed. */
  embedder: Embedder;
  /** Absent where no chat runs (e.g. a test of the context store alone). */
  sessions?: ExpiringItems;
  clock: Clock;
  /** The run stops starting new work at this instant (a Lambda's remaining time minus a margin). */
  deadline: Date;
  log?: CleanupLog;
  /** A pending record younger than this may still be finishing its own add. */
  staleAfterMs?: number;
  /** Re-index attempts before a record is marked `failed`. */
  maxAttempts?: number;
  pageSize?: number;
  /** Builds what is embedded for a chunk (the context store may add overlap); defaults to the chunk's text. */
  embeddingTextOf?: (record: ContextRecord) => string;
  /** Writes each re-indexed chunk's terms beside its vector (hybrid retrieval, as the store's adds do); default true. */
  lexical?: boolean;
}

/** What one run did; `complete` is false when the deadline stopped it (the next run continues). */
export interface CleanupReport {
  reindexed: number;
  failed: number;
  deletedRecords: number;
  deletedVectors: number;
  orphanVectors: number;
  expiredSessions: number;
  complete: boolean;
}
