import { createChatServices } from '@memgate/adapters/services/chat';
import { createContextServices } from '@memgate/adapters/services/context';
import { createEmbedder } from '@memgate/adapters/services/embedder';
import { createProxyServices } from '@memgate/adapters/services/proxy';
import { createChatApp, createTokenVerifier, silentLogger } from '@memgate/http';
import { createLocalInputs } from '../support/local-inputs.ts';
import { TEST_SECRET, tokenFor } from '../support/tokens.ts';

/**
 * The chat on the real local pieces (DynamoDB Local, the embedded vector index, the lexical embedder) and the
 * proxy's default model as configured by `env` (the extractive responder, or DEFAULT_MODEL_BASE_URL's upstream).
 */
export async function startChat(env: Record<string, string> = {}) {
  const local = await createLocalInputs('chat', { PROXY_ALLOW_PRIVATE_TARGETS: 'true', ...env });
  const { inputs } = local;
  const embedder = createEmbedder(inputs.config);
  const context = createContextServices(inputs, { embedder });
  const proxy = createProxyServices(inputs, { embedder, contextStore: context.store });
  const chat = createChatServices(inputs, { contextStore: context.store, defaultModel: proxy.defaultModel });
  const app = createChatApp({
    ...chat,
    verifier: createTokenVerifier({ kind: 'hs256', secret: TEST_SECRET }),
    logger: silentLogger,
  });

  async function request(path: string, user: string, body?: unknown): Promise<Response> {
    const token = await tokenFor(user);
    return app.request(path, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  }

  return {
    store: context.store,
    sessions: chat.sessions,
    ask: (user: string, body: unknown) => request('/api/v1/chat/generate/stream', user, body),
    replay: (user: string, id: string) => request(`/api/v1/chat/replay/${id}`, user),
    async close() {
      await local.close();
    },
  };
}
