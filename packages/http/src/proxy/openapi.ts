import { type OpenAPIHono, z } from '@hono/zod-openapi';
import { ResponsesRequestSchema } from './responses/schema.ts';
import { ProxyRequestSchema } from './schema.ts';

const ErrorSchema = z
  .object({
    error: z.object({ message: z.string(), type: z.string(), param: z.string().nullable(), code: z.string() }),
  })
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

const ModelListSchema = z
  .object({
    object: z.literal('list'),
    data: z.array(z.object({ id: z.string(), object: z.literal('model'), created: z.number(), owned_by: z.string() })),
  })
  .openapi('ModelList');

const ResponseSchema = z
  .object({
    id: z.string(),
    object: z.literal('response'),
    created_at: z.number(),
    model: z.string(),
    status: z.string(),
    output: z.array(z.object({ type: z.string() }).loose()),
    usage: z
      .object({ input_tokens: z.number(), output_tokens: z.number(), total_tokens: z.number() })
      .loose()
      .nullable(),
  })
  .loose()
  .openapi('Response');

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

const targetParams = z.object({ proxyUrl: z.string(), target_api_key: z.string() });

/** The Responses API and the model list on both routes. */
function registerResponsesAndModels(app: Pick<OpenAPIHono, 'openAPIRegistry'>): void {
  const body = { required: true, content: { 'application/json': { schema: ResponsesRequestSchema } } };
  const answered = {
    ...responses(),
    200: {
      description:
        'The Response (JSON), or with `stream: true` an SSE stream of Responses events (`event: response.created` … `event: response.completed`)',
      headers: memgateHeaders,
      content: { 'application/json': { schema: ResponseSchema }, 'text/event-stream': { schema: z.string() } },
    },
  };
  const listed = {
    ...responses(),
    200: { description: 'The model list', content: { 'application/json': { schema: ModelListSchema } } },
  };
  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/api/v1/proxy/{proxyUrl}/{target_api_key}/responses',
    summary: 'Responses API through a target',
    description: 'Forwarded to the target /responses; the `input` messages are filtered and context injected first.',
    tags: ['proxy'],
    request: { params: targetParams, headers: switches, body },
    responses: answered,
  });
  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/api/v1/proxy/default/responses',
    summary: 'Responses API with the service default model',
    description:
      'Translated to and from chat completions for the default model. Stateless: `previous_response_id` is refused (400).',
    tags: ['proxy'],
    request: { headers: switches, body },
    responses: answered,
  });
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: '/api/v1/proxy/{proxyUrl}/{target_api_key}/models',
    summary: "The target's model list",
    tags: ['proxy'],
    request: { params: targetParams },
    responses: listed,
  });
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: '/api/v1/proxy/default/models',
    summary: 'The default model (DEFAULT_MODEL_ID)',
    tags: ['proxy'],
    responses: listed,
  });
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
  registerResponsesAndModels(app);
}
