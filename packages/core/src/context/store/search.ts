import type { Principal } from '../../auth/index.ts';
import { invalid } from '../../errors/index.ts';
import type { VectorFilter, VectorMatch } from '../ports.ts';
import type { SearchHit, SearchInput } from '../service.ts';
import { readScope } from './access.ts';
import { type ContextStoreDeps, indexingFailed } from './deps.ts';
import { visibleChunks } from './visibility.ts';

export const MAX_QUERY_CHARS = 10_000;
export const DEFAULT_TOP_K = 10;
export const MAX_TOP_K = 100;

/** `metadata` keys that narrow a search, and the vector attribute each one matches. */
const METADATA_FILTERS = {
  file_name: 'fileName',
  doc_type: 'docType',
  source: 'source',
  context_type: 'contextType',
  tags: 'tags',
} as const satisfies Record<string, keyof VectorFilter>;

function checkThreshold(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
    throw invalid('must be a number from 0 to 1', field);
  }
  return value;
}

function validate(input: SearchInput): { min: number; max: number; topK: number } {
  if (typeof input.query !== 'string' || input.query.trim() === '') throw invalid('must not be empty', 'query');
  if (input.query.length > MAX_QUERY_CHARS) throw invalid(`at most ${MAX_QUERY_CHARS} characters`, 'query');
  const max = checkThreshold(input.similarity_threshold, 'similarity_threshold');
  const min = checkThreshold(input.minimum_similarity_threshold, 'minimum_similarity_threshold');
  if (min > max) {
    throw invalid('must not be greater than similarity_threshold', 'minimum_similarity_threshold');
  }
  const topK = input.top_k ?? DEFAULT_TOP_K;
  if (!Number.isInteger(topK) || topK < 1 || topK > MAX_TOP_K) throw invalid(`must be from 1 to ${MAX_TOP_K}`, 'top_k');
  return { min, max, topK };
}

function filterOf(input: SearchInput, ownerId: string | undefined): VectorFilter {
  const filter: VectorFilter = { scopes: input.scope ?? 'internal' };
  if (ownerId !== undefined) filter.userId = ownerId;
  for (const [key, attribute] of Object.entries(METADATA_FILTERS)) {
    const value = input.metadata?.[key];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') throw invalid('must be a string', `metadata.${key}`);
    filter[attribute] = value;
  }
  return filter;
}

const clamp = (score: number) => Math.min(1, Math.max(0, score));

/**
 * Search (DESIGN.md section 3): one embedding, one vector query per visible namespace, one batch read that drops
 * any hit whose record is not (or no longer) visible. Results lie in the similarity band, best first.
 */
export async function searchContext(
  deps: ContextStoreDeps,
  principal: Principal,
  input: SearchInput,
): Promise<SearchHit[]> {
  const { min, max, topK } = validate(input);
  const { tenants, ownerId } = readScope(principal, { userId: input.user_id, organizationId: input.organization_id });
  const filter = filterOf(input, ownerId);
  if (tenants.length === 0) return [];
  let matches: (VectorMatch & { tenant: string })[];
  try {
    const [vector] = await deps.embedder.embed([input.query], 'query');
    const perTenant = await Promise.all(
      tenants.map(async (tenant) => {
        const found = await deps.index.query(tenant, { vector: vector as Float32Array, topK, filter });
        return found.map((match) => ({ ...match, score: clamp(match.score), tenant }));
      }),
    );
    matches = perTenant.flat();
  } catch (error) {
    throw indexingFailed('the search could not reach the embedder or the vector store; retry the request', error);
  }
  const candidates = matches
    .filter((match) => match.score >= min && match.score <= max)
    .sort((a, b) => b.score - a.score)
    .slice(0, topK);
  if (candidates.length === 0) return [];
  const chunks = await visibleChunks(deps.repository, candidates);
  return candidates.flatMap((match) => {
    const chunk = chunks.get(match.id);
    if (!chunk || chunk.tenant !== match.tenant) return [];
    return [
      {
        contextId: chunk._id,
        contextData: chunk.text,
        score: match.score,
        documentId: chunk.document_id,
        fileName: chunk.metadata.file_name,
        source: chunk.source,
      },
    ];
  });
}
