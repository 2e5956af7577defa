import { CORS_RULES } from '../packages/http/src/cors/index.ts';
import { lambda } from './functions.ts';

// API Gateway HTTP APIs buffer whole responses, so the SSE endpoints run behind function URLs in RESPONSE_STREAM
// mode (`streaming: true`). CORS is set on the URL, not in the app, so headers are never sent twice.
const cors = {
  allowOrigins: ['*'],
  ...CORS_RULES.streaming,
  maxAge: '60 minutes',
} satisfies Exclude<SstFunctionArgs['url'], boolean | undefined>['cors'];

const MODEL_SECRETS = ['pineconeApiKey', 'embeddingsApiKey', 'defaultModelApiKey', 'authJwtSecret'] as const;

/** Spec 4.2, both routes: the upstream's SSE chunks are forwarded as they arrive. */
export const proxy = lambda('Proxy', {
  bundle: 'proxy',
  memory: '512 MB',
  timeout: '5 minutes',
  streaming: true,
  url: { authorization: 'none', cors },
  secrets: [...MODEL_SECRETS],
});

/** Spec 4.3: the chat stream and its replay. */
export const chat = lambda('ChatStream', {
  bundle: 'chat-stream',
  memory: '1024 MB',
  timeout: '5 minutes',
  streaming: true,
  url: { authorization: 'none', cors },
  secrets: [...MODEL_SECRETS],
});
