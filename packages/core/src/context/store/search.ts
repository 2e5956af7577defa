import type { Principal, TenantKey } from '../../auth/index.ts';
import { invalid } from '../../errors/index.ts';
import { giveWay } from '../../history/time-slice.ts';
import { querySpeakerIds, queryTermFrequencies } from '../lexical/index.ts';
import type { GenerationTag, SparseValues, VectorFilter, VectorQuery } from '../ports.ts';
import type { SearchHit, SearchInput } from '../service.ts';
import { readScope } from './access.ts';
import { type ContextStoreDeps, DEFAULT_LEXICAL_WEIGHT, DEFAULT_SPEAKER_FACTOR, indexingFailed } from './deps.ts';
import { type Candidate, visibleHits } from './search-rows.ts';
import { type QuietTenants, tagsRead } from './tags-read.ts';
import type { VisibilityCache } from './visibility-cache.ts';

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

const FILTER_KEYS = Object.keys(METADATA_FILTERS).join(', ');

function filterOf(input: SearchInput, ownerId: string | undefined): VectorFilter {
  const filter: VectorFilter = { scopes: input.scope ?? 'internal' };
  if (ownerId !== undefined) filter.userId = ownerId;
  for (const key in input.metadata) {
    const value = input.metadata[key];
    if (value === undefined || value === null) continue;
    // Another key would narrow nothing, and the caller would take every result for a narrowed one.
    if (!Object.hasOwn(METADATA_FILTERS, key)) {
      throw invalid(`not a search filter; metadata narrows by ${FILTER_KEYS}`, `metadata.${key}`);
    }
    if (typeof value !== 'string') throw invalid('must be a string', `metadata.${key}`);
    filter[METADATA_FILTERS[key as keyof typeof METADATA_FILTERS]] = value;
  }
  return filter;
}

const clamp = (score: number) => Math.min(1, Math.max(0, score));

/** Widest index query per tenant (Pinecone's ceiling for a query that returns metadata). */
export const MAX_FETCH = 1_000;
/** How much wider each further index query is, when the band or hidden records left fewer than `top_k`. */
const WIDENING = 4;

/**
 * Search (DESIGN.md section 3): one embedding and the query's terms, one hybrid index query per visible namespace
 * (alongside them, the tenants' generation tags), one batch read that drops any hit whose record is not (or no
 * longer) visible, except hits the index has confirmed, or the visibility cache holds, at their tenant's current tag
 * (search-rows.ts). The band applies
 * before `top_k`: while fewer than `top_k` visible in-band results are certain, the index is asked again for 4 times
 * as many (up to MAX_FETCH), so results better than the band and hidden records never take a slot.
 */
export async function searchContext(
  deps: ContextStoreDeps,
  cache: VisibilityCache | undefined,
  principal: Principal,
  input: SearchInput,
  quiet?: QuietTenants,
): Promise<SearchHit[]> {
  const { min, max, topK } = validate(input);
  const { tenants, ownerId } = readScope(principal, { userId: input.user_id, organizationId: input.organization_id });
  const filter = filterOf(input, ownerId);
  if (tenants.length === 0) return [];
  const lexicalWeight = deps.retrieval?.lexicalWeight ?? DEFAULT_LEXICAL_WEIGHT;
  const terms = lexicalWeight > 0 ? queryTermFrequencies(input.query) : undefined;
  const speakerFactor = deps.retrieval?.speakerFactor ?? DEFAULT_SPEAKER_FACTOR;
  const speakers =
    terms && speakerFactor < 1 ? { terms: querySpeakerIds(input.query), factor: speakerFactor } : undefined;
  // The generation tags decide which confirmed or cached chunks hold. Read once, after the request arrived (so after
  // every hide acknowledged before it) and alongside the embedding and the index query, not after them; for tenants
  // whose last search here found nothing, only once a match comes back (tags-read.ts).
  const noTags = Promise.resolve(new Map<TenantKey, GenerationTag>());
  const withTags = needsTags(deps, cache);
  const eager = withTags && !tenants.every((tenant) => quiet?.has(tenant));
  const tags = withTags ? tagsRead(deps.repository, tenants, { eager }) : () => noTags;
  // A client (the AWS SDK's) sends the read only after a chain of promise jobs; the index query is synchronous CPU
  // (1.5 ms at 10k chunks), so run first it would delay the round trip by its whole length. One turn of the event
  // loop lets the read reach the wire first, and the index query then runs during the round trip (issue 17).
  if (eager) await giveWay();
  let vector: Float32Array;
  try {
    [vector] = (await deps.embedder.embed([input.query], 'query')) as [Float32Array];
  } catch (error) {
    throw indexingFailed('the search could not reach the embedder or the vector store; retry the request', error);
  }
  const seen = new Set<string>();
  const found: SearchHit[] = [];
  // In-band matches not read yet, best first (equal scores in the order the tenants returned them).
  let unread: Candidate[] = [];
  for (let fetch = topK; ; fetch = Math.min(MAX_FETCH, fetch * WIDENING)) {
    const perTenant = await queryTenants(deps, tenants, {
      vector,
      topK: fetch,
      filter,
      terms,
      lexicalWeight,
      speakers,
    });
    if (fetch === topK) {
      for (const [i, tenant] of tenants.entries()) quiet?.answered(tenant, perTenant[i]?.length ?? 0);
    }
    const fresh = perTenant
      .flat()
      .filter((match) => match.score >= min && match.score <= max && !seen.has(`${match.tenant}\u0000${match.id}`));
    for (const match of fresh) seen.add(`${match.tenant}\u0000${match.id}`);
    unread = [...unread, ...fresh].sort((a, b) => b.score - a.score);
    // Matches a tenant has not returned yet score at most its last one: results above every such horizon are final.
    // A tenant whose last match is already below the band has nothing left to give (issue 17: a search with no
    // in-band match asked the index 5 times, up to 1,000 matches, e.g. every proxy request with no relevant context).
    const open = perTenant.filter((matches) => matches.length >= fetch && (matches.at(-1)?.score ?? 0) >= min);
    const horizon = Math.max(...open.map((matches) => matches.at(-1)?.score ?? 0), Number.NEGATIVE_INFINITY);
    // Only the best unread matches are read (a batch read costs a read unit per row): a result is final once it
    // beats every unread match and the horizon. Several tenants each answer top_k, but top_k results are shown.
    // Each further read of a round is twice as wide, so many hidden records cost few round trips.
    for (let wider = 0; ; wider = Math.max(1, wider * 2)) {
      const next = unread[0]?.score ?? Number.NEGATIVE_INFINITY;
      // An unread match scoring the same as a read one comes after it (ties keep the order the tenants answered).
      const settled = found.filter((hit) => hit.score >= horizon && hit.score >= next).length;
      if (settled >= topK || unread.length === 0) break;
      const batch = unread.splice(0, Math.max(topK - settled, wider * topK));
      found.push(...(await visibleHits(deps, cache, batch, await tags())));
    }
    const settled = found.filter((hit) => hit.score >= horizon).length;
    if (settled >= topK || open.length === 0 || fetch >= MAX_FETCH) break;
  }
  return found.sort((a, b) => b.score - a.score).slice(0, topK);
}

/** Tags are only worth a read when something can vouch for a hit with them: the index's confirmations or a cache. */
const needsTags = (deps: ContextStoreDeps, cache: VisibilityCache | undefined) =>
  cache !== undefined || deps.index.confirm !== undefined;

async function queryTenants(
  deps: ContextStoreDeps,
  tenants: readonly TenantKey[],
  query: VectorQuery & { terms: SparseValues | undefined },
): Promise<Candidate[][]> {
  const { terms, ...rest } = query;
  try {
    return await Promise.all(
      tenants.map(async (tenant) => {
        const matches = await deps.index.query(tenant, terms ? { ...rest, terms } : rest);
        return matches.map((match) => ({ ...match, score: clamp(match.score), tenant }));
      }),
    );
  } catch (error) {
    throw indexingFailed('the search could not reach the embedder or the vector store; retry the request', error);
  }
}
