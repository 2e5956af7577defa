import { DEFAULT_LEXICAL_WEIGHT, DEFAULT_NEIGHBOUR_WINDOW, DEFAULT_SPEAKER_FACTOR } from '@memgate/core';
import { z } from 'zod';
import { operatorUrlProblem } from '../ssrf/operator.ts';

const flag = z
  .enum(['true', 'false', '1', '0', ''])
  .optional()
  .transform((value) => value === 'true' || value === '1');
const optionalText = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === '' ? undefined : value.trim()));
/** HS256 with a short secret can be brute-forced offline from any token; RFC 7518 §3.2 asks for 256 bits. */
export const MIN_JWT_SECRET_BYTES = 32;
const jwtSecret = optionalText.refine(
  (value) => value === undefined || Buffer.byteLength(value, 'utf8') >= MIN_JWT_SECRET_BYTES,
  `must be at least ${MIN_JWT_SECRET_BYTES} bytes (e.g. the output of \`openssl rand -base64 48\`)`,
);
const list = optionalText.transform((value) =>
  value === undefined
    ? []
    : value
        .split(',')
        .map((item) => item.trim().toLowerCase())
        .filter(Boolean),
);

/** Every environment variable the service reads (README "Configuration"); defaults are the embedded local mode. */
export const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8787),
  DATA_DIR: z.string().default('.data'),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),

  AUTH_JWT_SECRET: jwtSecret,
  AUTH_JWKS_URL: optionalText,
  AUTH_ISSUER: optionalText,
  AUTH_AUDIENCE: optionalText,

  DYNAMODB_ENDPOINT: optionalText,
  TABLE_NAME: z.string().default('memgate'),

  VECTOR_STORE: z.enum(['local', 'pinecone']).default('local'),
  // The embedded index drops a tenant unused this long from memory (reloaded on its next use); 0: never.
  LOCAL_INDEX_UNLOAD_AFTER_MS: z.coerce.number().int().min(0).default(600_000),
  // Past this RSS the local server runs a full garbage collection when its heap holds enough garbage; 0: never.
  LOCAL_MEMORY_SOFT_LIMIT_MB: z.coerce.number().int().min(0).default(448),
  PINECONE_API_KEY: optionalText,
  PINECONE_INDEX: optionalText,
  PINECONE_HOST: optionalText,

  EMBEDDINGS: z.enum(['local', 'openai', 'pinecone']).default('local'),
  EMBEDDINGS_BASE_URL: optionalText,
  EMBEDDINGS_API_KEY: optionalText,
  EMBEDDINGS_MODEL: optionalText,
  EMBEDDINGS_DIMENSION: z.coerce.number().int().positive().optional(),

  DEFAULT_MODEL_ID: z.string().default('memgate/default'),
  DEFAULT_MODEL_BASE_URL: optionalText,
  DEFAULT_MODEL_API_KEY: optionalText,
  DEFAULT_MODEL_UPSTREAM_ID: optionalText,

  PROXY_ALLOWED_HOSTS: list,
  PROXY_ALLOW_PRIVATE_TARGETS: flag,
  PROXY_KEEP_RECENT: z.coerce.number().int().min(0).default(4),
  // Defaults depend on the embedder: see relevanceDefaults.
  PROXY_HISTORY_MIN_SIMILARITY: z.coerce.number().min(0).max(1).optional(),
  PROXY_HISTORY_TOKEN_BUDGET: z.coerce.number().int().positive().default(8000),
  PROXY_CONTEXT_TOP_K: z.coerce.number().int().min(0).max(100).default(5),
  PROXY_CONTEXT_MIN_SIMILARITY: z.coerce.number().min(0).max(1).optional(),
  PROXY_UPSTREAM_TIMEOUT_MS: z.coerce.number().int().positive().default(120_000),
  // Under the proxy Lambda's 5-minute timeout, so a long stream ends with an error event rather than being killed.
  PROXY_TOTAL_TIMEOUT_MS: z.coerce.number().int().positive().default(280_000),

  CHAT_TTL_DAYS: z.coerce.number().positive().default(30),
  // Per process: the context store's cache of chunks search found visible (README "Configuration"); 0 turns it off.
  SEARCH_CACHE_MB: z.coerce.number().min(0).max(4096).default(16),
  // Hybrid retrieval (README "Search score"); defaults chosen on LoCoMo's development split (bench/EVAL.md).
  HYBRID_LEXICAL_WEIGHT: z.coerce.number().min(0).max(1).optional(),
  // What a neighbouring chunk's term counts for: BEFORE for a chunk before it, AFTER for one after it; the older
  // HYBRID_NEIGHBOUR_WEIGHT sets both where they are unset.
  HYBRID_NEIGHBOUR_BEFORE: z.coerce.number().min(0).max(1).optional(),
  HYBRID_NEIGHBOUR_AFTER: z.coerce.number().min(0).max(1).optional(),
  HYBRID_NEIGHBOUR_WEIGHT: z.coerce.number().min(0).max(1).optional(),
  HYBRID_NEIGHBOUR_SPAN: z.coerce.number().int().min(0).max(10).default(DEFAULT_NEIGHBOUR_WINDOW.span),
  // What a chunk spoken by someone the query does not name keeps of its score when the query names a speaker.
  HYBRID_SPEAKER_FACTOR: z.coerce.number().min(0).max(1).default(DEFAULT_SPEAKER_FACTOR),
});

type Relevance = 'PROXY_HISTORY_MIN_SIMILARITY' | 'PROXY_CONTEXT_MIN_SIMILARITY' | 'HYBRID_LEXICAL_WEIGHT';
type Neighbours = 'HYBRID_NEIGHBOUR_BEFORE' | 'HYBRID_NEIGHBOUR_AFTER';
export type Config = Omit<z.infer<typeof ConfigSchema>, Relevance | Neighbours | 'HYBRID_NEIGHBOUR_WEIGHT'> &
  Record<Relevance | Neighbours, number>;

/**
 * Similarity floors when the variables are unset. Neural embeddings (DESIGN.md section 4's defaults) score a short
 * question against a relevant chunk around 0.3 to 0.6. With the lexical embedder the score is hybrid (README
 * "Search score"), mostly the share of the question's words a chunk holds: its floors are lower (chosen below).
 */
export function relevanceDefaults(embeddings: Config['EMBEDDINGS']): Record<Relevance, number> {
  return embeddings === 'local'
    ? {
        PROXY_HISTORY_MIN_SIMILARITY: LEXICAL_HISTORY_RELEVANCE_FLOOR,
        PROXY_CONTEXT_MIN_SIMILARITY: LEXICAL_RELEVANCE_FLOOR,
        HYBRID_LEXICAL_WEIGHT: DEFAULT_LEXICAL_WEIGHT,
      }
    : {
        PROXY_HISTORY_MIN_SIMILARITY: 0.2,
        PROXY_CONTEXT_MIN_SIMILARITY: 0.25,
        HYBRID_LEXICAL_WEIGHT: NEURAL_LEXICAL_WEIGHT,
      };
}

/**
 * With neural embeddings the dense cosine carries meaning the terms miss (synonyms, paraphrase), so the lexical
 * match gets the smaller share: a relevant chunk that shares no word with the question (cosine ~0.5) still scores
 * above the neural context floor (0.25). Not measured on LoCoMo (the eval runs with no model): a starting point.
 */
export const NEURAL_LEXICAL_WEIGHT = 0.3;

/**
 * The context floor with the lexical embedder (injected context, the chat's sources): the highest floor that loses
 * under 0.01 of the evidence the first 5 results hold. On LoCoMo's development split (`npm run eval`, bench/EVAL.md
 * "Context floor"), the evidence turns among a question's first 5 results score 0.22 / 0.34 / 0.46 (quartiles) and
 * a question asked of another conversation's memory scores 0.09 at its best (median): 0.10 injects 0.654 of the
 * evidence turns against 0.662 with no floor, and context for 38% of those unrelated questions; 0.12 (the floor of
 * the dense score before hybrid retrieval) 0.632 and 22%; 0.08 0.661 and 61%.
 */
export const LEXICAL_RELEVANCE_FLOOR = 0.1;

/**
 * The history filter's floor with the lexical embedder. Its score is hybrid (core/history/relevance.ts): a message
 * with no word of the question scores 0.2 of a lexical cosine (mostly under 0.05), so the floor sits just above.
 * On LoCoMo's development split (`npm run eval`, 200 questions, lexical weight 0.8): 0.06 keeps 0.908 of the
 * evidence turns at 25% of the history's characters; 0.05 0.912 at 29%; 0.07 0.906 at 22%; 0.08 0.896 at 19%
 * (bench/EVAL.md). The evidence target (0.90) binds first, so the floor keeps a margin on it.
 */
export const LEXICAL_HISTORY_RELEVANCE_FLOOR = 0.06;

/** Reads and checks configuration once; a bad value stops start-up with a message naming the variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // Parsed once per process: without zod's compiled fast path, whose generation costs a cold start more than it saves.
  const result = ConfigSchema.safeParse(env, { jitless: true });
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new Error(`invalid configuration: ${String(issue?.path.join('.'))}: ${issue?.message}`);
  }
  const defaults = relevanceDefaults(result.data.EMBEDDINGS);
  const { HYBRID_NEIGHBOUR_WEIGHT: bothSides, ...data } = result.data;
  const config: Config = {
    ...data,
    HYBRID_NEIGHBOUR_BEFORE: data.HYBRID_NEIGHBOUR_BEFORE ?? bothSides ?? DEFAULT_NEIGHBOUR_WINDOW.before,
    HYBRID_NEIGHBOUR_AFTER: data.HYBRID_NEIGHBOUR_AFTER ?? bothSides ?? DEFAULT_NEIGHBOUR_WINDOW.after,
    PROXY_HISTORY_MIN_SIMILARITY: result.data.PROXY_HISTORY_MIN_SIMILARITY ?? defaults.PROXY_HISTORY_MIN_SIMILARITY,
    PROXY_CONTEXT_MIN_SIMILARITY: result.data.PROXY_CONTEXT_MIN_SIMILARITY ?? defaults.PROXY_CONTEXT_MIN_SIMILARITY,
    HYBRID_LEXICAL_WEIGHT: result.data.HYBRID_LEXICAL_WEIGHT ?? defaults.HYBRID_LEXICAL_WEIGHT,
  };
  // Operator upstreams are trusted (any http(s) address, private too), but must be usable URLs.
  for (const name of ['DEFAULT_MODEL_BASE_URL', 'EMBEDDINGS_BASE_URL'] as const) {
    const problem = config[name] === undefined ? undefined : operatorUrlProblem(config[name]);
    if (problem) throw new Error(`invalid configuration: ${name} ${problem}`);
  }
  if (config.VECTOR_STORE === 'pinecone' && !(config.PINECONE_API_KEY && config.PINECONE_INDEX)) {
    throw new Error('invalid configuration: VECTOR_STORE=pinecone needs PINECONE_API_KEY and PINECONE_INDEX');
  }
  if (config.EMBEDDINGS === 'openai' && !config.EMBEDDINGS_BASE_URL) {
    throw new Error('invalid configuration: EMBEDDINGS=openai needs EMBEDDINGS_BASE_URL');
  }
  if (config.EMBEDDINGS === 'pinecone' && !config.PINECONE_API_KEY) {
    throw new Error('invalid configuration: EMBEDDINGS=pinecone needs PINECONE_API_KEY');
  }
  return config;
}
