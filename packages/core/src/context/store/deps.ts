import type { Clock } from '../../clock.ts';
import { MemgateError } from '../../errors/index.ts';
import type { NeighbourWindow } from '../lexical/index.ts';
import type { ContextRepository, Embedder, VectorIndex } from '../ports.ts';

/**
 * The lexical match's share of a search score (the rest is the dense cosine). Chosen on LoCoMo's development split
 * with the lexical embedder (bench/EVAL.md); configurable (HYBRID_LEXICAL_WEIGHT).
 */
export const DEFAULT_LEXICAL_WEIGHT = 0.8;

/**
 * What a chunk spoken by someone a query does not name keeps of its score when the query names a speaker of the
 * tenant's turns (VectorQuery.speakers). On LoCoMo's development split, 96% of the evidence for a question naming
 * one of the two speakers is that speaker's own turns; 0.6 lies between the best values of each half of the split
 * (0.5 and 0.7) and raised recall@1/5/10 from 0.391/0.662/0.748 to 0.425/0.683/0.761 (bench/EVAL.md). Configurable
 * (HYBRID_SPEAKER_FACTOR; 1 turns it off).
 */
export const DEFAULT_SPEAKER_FACTOR = 0.6;

/** Hybrid retrieval settings; each has a default. */
export interface RetrievalSettings {
  /** From 0 (dense only) to 1 (lexical only). */
  lexicalWeight?: number;
  /** How neighbouring chunks of one add lend their terms (DEFAULT_NEIGHBOUR_WINDOW). */
  neighbours?: NeighbourWindow;
  /** From 0 to 1 (DEFAULT_SPEAKER_FACTOR); 1: a query's speakers change nothing. */
  speakerFactor?: number;
}

export type StoreLog = (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;

export interface ContextStoreDeps {
  repository: ContextRepository;
  index: VectorIndex;
  embedder: Embedder;
  clock: Clock;
  retrieval?: RetrievalSettings;
  /**
   * Bytes of visible chunks search may show again without reading their rows, while their tenant's generation holds
   * (visibility-cache.ts); default DEFAULT_VISIBILITY_CACHE_BYTES, 0 turns the cache off.
   */
  visibilityCacheBytes?: number;
  /** Where work left to the cleanup is reported (a delete whose vector removal failed). */
  log?: StoreLog;
}

/** A failure of the embedder or the vector store, as a 500 a caller can understand (no internals in the text). */
export function indexingFailed(what: string, cause: unknown): MemgateError {
  return new MemgateError('internal', 'indexing_failed', what, { cause });
}

/** Runs `run` over `items` with at most `limit` at once, keeping result order. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  async function worker(): Promise<void> {
    while (next < items.length) {
      const position = next++;
      results[position] = await run(items[position] as T);
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
