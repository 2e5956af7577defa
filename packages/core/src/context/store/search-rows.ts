import type { TenantKey } from '../../auth/index.ts';
import type { Confirmation, GenerationTag, VectorMatch } from '../ports.ts';
import type { SearchHit } from '../service.ts';
import type { ContextStoreDeps } from './deps.ts';
import { recordConfirmations } from './generation-tags.ts';
import { visibleChunks } from './visibility.ts';
import type { ShownChunk, VisibilityCache } from './visibility-cache.ts';

/** An index match and the tenant whose namespace returned it. */
export type Candidate = VectorMatch & { tenant: TenantKey };

/**
 * The visible chunks behind `candidates`, as results (best first is the caller's order). `tags` are the tenants'
 * generation tags, read after the request arrived and before any row read below. A candidate is shown:
 * - from the index, when it comes back confirmed at its tenant's current tag (VectorIndex.confirm);
 * - else from this process's cache, when it holds the chunk at that tag;
 * - else from one strongly consistent batch read of its chunk and document, and then, if visible, cached and
 *   confirmed in the index at the tag read BEFORE that read: a hide after it bumps the tag, so the verdict can only
 *   be used while no hide has been acknowledged since the row read.
 */
export async function visibleHits(
  deps: ContextStoreDeps,
  cache: VisibilityCache | undefined,
  candidates: readonly Candidate[],
  tags: ReadonlyMap<TenantKey, GenerationTag>,
): Promise<SearchHit[]> {
  const shown = new Map<Candidate, ShownChunk>();
  const unread: Candidate[] = [];
  for (const match of candidates) {
    const tag = tags.get(match.tenant);
    const chunk =
      tag === undefined
        ? undefined
        : match.confirmed?.tag === tag
          ? shownFromIndex(match, match.confirmed.text)
          : cache?.get(match.tenant, match.id, tag);
    if (chunk) shown.set(match, chunk);
    else unread.push(match);
  }
  if (unread.length === 0) return resultsOf(candidates, shown);
  const chunks = await visibleChunks(deps.repository, unread);
  const confirmations = new Map<TenantKey, Confirmation[]>();
  for (const match of unread) {
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
    if (tag === undefined) continue;
    cache?.set(match.tenant, result, tag);
    // Only what the index would then show exactly as this row read does (its metadata says the rest).
    if (deps.index.confirm && sameShown(shownFromIndex(match, result.text), result)) {
      const list = confirmations.get(match.tenant) ?? [];
      confirmations.set(match.tenant, list);
      list.push({ id: match.id, text: result.text, tag });
    }
  }
  await recordConfirmations(deps, confirmations, 'context search: confirming visible chunks in the index failed');
  return resultsOf(candidates, shown);
}

/** What a match confirmed with `text` shows: the rest comes from the index's metadata of it. */
function shownFromIndex(match: Candidate, text: string): ShownChunk {
  const { documentId, fileName, source } = match.metadata;
  return { contextId: match.id, text, documentId, fileName, source };
}

function sameShown(a: ShownChunk, b: ShownChunk): boolean {
  return (
    a.contextId === b.contextId &&
    a.text === b.text &&
    a.documentId === b.documentId &&
    a.fileName === b.fileName &&
    a.source === b.source
  );
}

function resultsOf(candidates: readonly Candidate[], shown: ReadonlyMap<Candidate, ShownChunk>): SearchHit[] {
  return candidates.flatMap((match) => {
    const chunk = shown.get(match);
    if (!chunk) return [];
    const { contextId, text, documentId, fileName, source } = chunk;
    return [{ contextId, contextData: text, score: match.score, documentId, fileName, source }];
  });
}
