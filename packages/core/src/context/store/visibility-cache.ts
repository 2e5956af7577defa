import type { TenantKey } from '../../auth/index.ts';
import { createLru } from '../../cache/lru.ts';
import type { ContextRepository, GenerationTag } from '../ports.ts';

/** 16 MiB of chunks (a few tens of thousands of typical chunks); SEARCH_CACHE_MB configures it. */
export const DEFAULT_VISIBILITY_CACHE_BYTES = 16 * 1024 * 1024;

/** What a search result shows of a chunk, as its row said when a strongly consistent read found it visible. */
export interface ShownChunk {
  contextId: string;
  text: string;
  documentId: string;
  fileName: string;
  source: string;
}

/**
 * Chunks a search found visible, each tagged with its tenant's generation tag as read BEFORE the row read that proved
 * it. Every path that hides a record bumps its tenant's generation after hiding and before answering (DESIGN.md 3's
 * "after 204, never returned"), so an entry whose tag is the tenant's current one was read after every hide
 * acknowledged so far, and shows what a row read would. Across processes too: the generation is a row everyone reads.
 * The index's confirmations (VectorIndex.confirm) follow the same rule; this cache serves indexes without them.
 */
export interface VisibilityCache {
  /** The chunk if it was read visible at `tag` of `tenant`; undefined otherwise (a row must be read). */
  get(tenant: TenantKey, chunkId: string, tag: GenerationTag): ShownChunk | undefined;
  /** Keeps a chunk a row read just found visible. Only visible chunks are kept: a hidden verdict is never cached. */
  set(tenant: TenantKey, chunk: ShownChunk, tag: GenerationTag): void;
}

interface Entry {
  tag: GenerationTag;
  chunk: ShownChunk;
}

/** An upper bound of what an entry holds: its strings at two bytes a character, and the objects around them. */
const ENTRY_OVERHEAD = 200;
const weigh = (key: string, { chunk, tag }: Entry) =>
  ENTRY_OVERHEAD +
  2 * (key.length + tag.length + chunk.contextId.length + chunk.text.length + chunk.documentId.length) +
  2 * (chunk.fileName.length + chunk.source.length);

/**
 * A visibility cache of at most `maxBytes` (least recently used out first), or undefined when `maxBytes` is 0:
 * search then reads the rows of every hit the index has not confirmed. Entries are keyed by tenant and chunk id, so
 * a hit in one tenant's namespace can only be served what was read as that tenant's row.
 */
export function createVisibilityCache({ maxBytes }: { maxBytes: number }): VisibilityCache | undefined {
  if (maxBytes <= 0) return undefined;
  const entries = createLru<string, Entry>({ maxWeight: maxBytes, weigh });
  const keyOf = (tenant: TenantKey, chunkId: string) => `${tenant}\u0000${chunkId}`;
  return {
    get(tenant, chunkId, tag) {
      const key = keyOf(tenant, chunkId);
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      if (entry.tag === tag) return entry.chunk;
      entries.delete(key); // read at another generation: it may be hidden now
      return undefined;
    },
    set(tenant, chunk, tag) {
      entries.set(keyOf(tenant, chunk.contextId), { tag, chunk });
    },
  };
}

/**
 * After a write that hid records (or may have: a concurrent request may be the one that hid them): bumps the
 * generations of their tenants, so no process's cache shows them again. Throws when the bump fails, and the request
 * then fails (500) as it would had the hide itself failed; the cleanup bumps again when it finishes a deletion.
 */
export async function bumpAfterHiding(
  repository: ContextRepository,
  records: readonly { tenant: TenantKey }[],
): Promise<void> {
  const tenants = [...new Set(records.map((record) => record.tenant))];
  if (tenants.length > 0) await repository.bumpGenerations(tenants);
}
