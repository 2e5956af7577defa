import { type OpenAPIHono, z } from '@hono/zod-openapi';
import { ProxyRequestSchema } from './schema.ts';

const ErrorSchema = z
  .object({ error: z.object({ message: z.string(), type: z.string(), code: z.string() }) })
  .openapi('ProxyError');

const CompletionSchema = z
  .object({
    id: z.string(),
    object: z.literal('chat.completion'),
    created: z.number(),
    model: z.string(),
    choices: z.array(
      z.object({
        index: z.number(),
        message: z.object({ role: z.string(), content: z.string().nullable() }).loose(),
        finish_reason: z.string().nullable(),
      }),
    ),
    usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number(), total_tokens: z.number() }),
  })
  .loose()
  .openapi('ChatCompletion');

const memgateHeaders = {
  'x-memgate-history-kept': { description: 'messages of the request forwarded', schema: { type: 'integer' as const } },
  'x-memgate-history-dropped': {
    description: 'messages of the request not forwarded',
    schema: { type: 'integer' as const },
  },
  'x-memgate-context-injected': { description: 'context records injected', schema: { type: 'integer' as const } },
  'x-memgate-tokens-saved': { description: 'tokens of the dropped messages', schema: { type: 'integer' as const } },
};

const switches = z.object({
  'x-memgate-filter': z.enum(['off']).optional().openapi({ description: 'off: forward the history unfiltered' }),
  'x-memgate-context': z.enum(['off']).optional().openapi({ description: 'off: inject no stored context' }),
  'x-memgate-store': z.enum(['off']).optional().openapi({ description: 'off: do not store the exchange' }),
});

function responses() {
  const error = (description: string) => ({ description, content: { 'application/json': { schema: ErrorSchema } } });
  return {
    200: {
      description:
        'The completion (JSON), or with `stream: true` an SSE stream of chat.completion.chunk events ending with `data: [DONE]`',
      headers: memgateHeaders,
      content: { 'application/json': { schema: CompletionSchema }, 'text/event-stream': { schema: z.string() } },
    },
    400: error('invalid_request (incl. unknown model, refused target: code invalid_target) or invalid_messages'),
    401: error('authentication_error, code invalid_token'),
    403: error('permission_error, code insufficient_scope (needs scope `proxy`)'),
    500: error('server_error, code internal_error'),
    502: error('upstream unreachable (server_error)'),
    504: error('upstream timeout (server_error)'),
  };
}

/** Both routes in the OpenAPI document; route A is served by a wildcard, so it is registered by hand. */
export function registerProxyDocs(app: Pick<OpenAPIHono, 'openAPIRegistry'>): void {
  const body = { required: true, content: { 'application/json': { schema: ProxyRequestSchema } } };
  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/api/v1/proxy/{proxyUrl}/{target_api_key}/chat/completions',
    summary: 'Chat completion through a target OpenAI-compatible API',
    description:
      'proxyUrl is the target base URL written into the path as is (https://…, a collapsed https:/…, or percent-encoded); ' +
      'target_api_key is sent upstream as Authorization: Bearer. History is filtered and stored context injected first.',
    tags: ['proxy'],
    request: {
      params: z.object({ proxyUrl: z.string(), target_api_key: z.string() }),
      headers: switches,
      body,
    },
    responses: responses(),
  });
  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/api/v1/proxy/default/chat/completions',
    summary: 'Chat completion with the service default model',
    description: '`model` must equal DEFAULT_MODEL_ID (default memgate/default).',
    tags: ['proxy'],
    request: { headers: switches, body },
    responses: responses(),
  });
}
