import { LAMBDA_RUNTIME } from './runtime.ts';
import { secrets } from './secrets.ts';
import { table } from './table.ts';

type Secret = keyof typeof secrets;

// Non-secret settings come from the deployer's environment at `sst deploy` time (README "Configuration").
const SETTINGS = [
  'PINECONE_INDEX',
  'PINECONE_HOST',
  'EMBEDDINGS',
  'EMBEDDINGS_BASE_URL',
  'EMBEDDINGS_MODEL',
  'EMBEDDINGS_DIMENSION',
  'AUTH_JWKS_URL',
  'AUTH_ISSUER',
  'AUTH_AUDIENCE',
  'DEFAULT_MODEL_ID',
  'DEFAULT_MODEL_BASE_URL',
  'DEFAULT_MODEL_UPSTREAM_ID',
  'PROXY_ALLOWED_HOSTS',
  'PROXY_KEEP_RECENT',
  'PROXY_HISTORY_MIN_SIMILARITY',
  'PROXY_HISTORY_TOKEN_BUDGET',
  'PROXY_CONTEXT_TOP_K',
  'PROXY_CONTEXT_MIN_SIMILARITY',
  'PROXY_UPSTREAM_TIMEOUT_MS',
  'CHAT_TTL_DAYS',
  'SEARCH_CACHE_MB',
  'LOG_LEVEL',
] as const;

const SECRET_ENV: Record<Secret, string> = {
  pineconeApiKey: 'PINECONE_API_KEY',
  embeddingsApiKey: 'EMBEDDINGS_API_KEY',
  defaultModelApiKey: 'DEFAULT_MODEL_API_KEY',
  authJwtSecret: 'AUTH_JWT_SECRET',
};

// Settings without which a function refuses to start (functions/runtime/aws.ts): a deploy without them stops here
// rather than shipping functions that fail every cold start.
const REQUIRED = {
  PINECONE_HOST:
    "the Pinecone index's data-plane host (Pinecone console), e.g. https://memgate-xxxxxxx.svc.<region>.pinecone.io",
} as const;

function settings(): Record<string, string> {
  const out: Record<string, string> = { VECTOR_STORE: 'pinecone', PINECONE_INDEX: 'memgate' };
  for (const name of SETTINGS) {
    const value = process.env[name];
    if (value !== undefined && value !== '') out[name] = value;
  }
  for (const [name, what] of Object.entries(REQUIRED)) {
    if (!out[name]) throw new Error(`set ${name} in the environment of \`sst deploy\`: ${what} (docs/DEPLOY.md)`);
  }
  return out;
}

/**
 * One Lambda from its prebuilt bundle (`npm run build` → dist/functions/<name>/index.mjs). It is linked to the
 * table (IAM access to it and its indexes) and receives only the secrets listed, as environment variables.
 */
export function lambda(
  id: string,
  {
    bundle,
    secrets: used,
    memory,
    timeout,
    ...rest
  }: {
    bundle: string;
    secrets: Secret[];
    memory: SstFunctionArgs['memory'];
    timeout: SstFunctionArgs['timeout'];
  } & Pick<SstFunctionArgs, 'url' | 'streaming' | 'description'>,
): sst.aws.Function {
  const environment: Record<string, SstInput<string>> = { ...settings(), TABLE_NAME: table.name };
  for (const name of used) environment[SECRET_ENV[name]] = secrets[name].value;
  return new sst.aws.Function(id, {
    bundle: `dist/functions/${bundle}`,
    handler: 'index.handler',
    runtime: LAMBDA_RUNTIME,
    architecture: 'arm64',
    memory,
    timeout,
    link: [table],
    environment,
    ...rest,
  });
}
