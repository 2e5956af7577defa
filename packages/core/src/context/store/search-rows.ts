import type { TenantKey } from '../../auth/index.ts';
import type { SearchRecord, VectorMatch } from '../ports.ts';
import type { SearchHit } from '../service.ts';
import type { ContextStoreDeps } from './deps.ts';
import { rowIdsOf, visibleChunks, visibleChunksIn } from './visibility.ts';
import type { ShownChunk, VisibilityCache } from './visibility-cache.ts';

/** An index match and the tenant whose namespace returned it. */
export type Candidate = VectorMatch & { tenant: TenantKey };

/**
 * The visible chunks behind `candidates`, as results (best first is the caller's order). Without a cache: one
 * strongly consistent batch read of their chunks and documents. With one (visibility-cache.ts), still one round trip:
 * - a candidate cached at the newest generation this process knows for its tenant is shown from the cache, if the
 *   generation read in this search's batch is still that one;
 * - the other candidates' rows are read in that same batch, and the visible ones cached with the generation known
 *   BEFORE the batch (a generation read inside the batch may have been read after a row: a batch has no order);
 * - cached candidates whose tenant's generation moved (a hide since) are read in a second batch, and cached with the
 *   generation the first batch read.
 * A tenant this process knows no generation of yet (its first search here) has it read first, on its own.
 */
export async function visibleHits(
  deps: ContextStoreDeps,
  cache: VisibilityCache | undefined,
  candidates: readonly Candidate[],
): Promise<SearchHit[]> {
  if (candidates.length === 0) return [];
  const shown = new Map<Candidate, ShownChunk>();
  if (!cache) {
    keepVisible(undefined, candidates, await visibleChunks(deps.repository, candidates), new Map(), shown);
    return resultsOf(candidates, shown);
  }
  const tenants = [...new Set(candidates.map((match) => match.tenant))];
  const unknown = tenants.filter((tenant) => cache.known(tenant) === undefined);
  if (unknown.length > 0) cache.learn(await deps.repository.readGenerations(unknown));
  const before = new Map(tenants.map((tenant) => [tenant, cache.known(tenant)]));
  const cached = new Map<Candidate, ShownChunk>();
  const unread: Candidate[] = [];
  for (const match of candidates) {
    const tag = before.get(match.tenant);
    const chunk = tag === undefined ? undefined : cache.get(match.tenant, match.id, tag);
    if (chunk) cached.set(match, chunk);
    else unread.push(match);
  }
  const { records, generations } = await deps.repository.getForSearchWithGenerations(rowIdsOf(unread), tenants);
  cache.learn(generations);
  const moved: Candidate[] = [];
  for (const [match, chunk] of cached) {
    if (generations.get(match.tenant) === before.get(match.tenant)) shown.set(match, chunk);
    else moved.push(match);
  }
  keepVisible(cache, unread, visibleChunksIn(records, unread), before, shown);
  if (moved.length > 0) keepVisible(cache, moved, await visibleChunks(deps.repository, moved), generations, shown);
  return resultsOf(candidates, shown);
}

/** Adds the visible chunks among `matches` to `shown`, and to the cache at their tenant's `tags` when known. */
function keepVisible(
  cache: VisibilityCache | undefined,
  matches: readonly Candidate[],
  chunks: ReadonlyMap<string, SearchRecord>,
  tags: ReadonlyMap<TenantKey, number | undefined>,
  shown: Map<Candidate, ShownChunk>,
): void {
  for (const match of matches) {
    const chunk = chunks.get(match.id);
    if (!chunk || chunk.tenant !== match.tenant) continue;
    const result: ShownChunk = {
      contextId: chunk._id,
      text: chunk.text,
      documentId: chunk.document_id,
      fileName: chunk.metadata.file_name,
      source: chunk.source,
    };
    shown.set(match, result);
    const tag = tags.get(match.tenant);
    if (cache && tag !== undefined) cache.set(match.tenant, result, tag);
  }
}

function resultsOf(candidates: readonly Candidate[], shown: ReadonlyMap<Candidate, ShownChunk>): SearchHit[] {
  return candidates.flatMap((match) => {
    const chunk = shown.get(match);
    if (!chunk) return [];
    const { contextId, text, documentId, fileName, source } = chunk;
    return [{ contextId, contextData: text, score: match.score, documentId, fileName, source }];
  });
}
