import { createRoute, z } from '@hono/zod-openapi';
import { ResponsesRequestSchema } from './responses/schema.ts';
import { ProxyRequestSchema } from './schema.ts';

// The proxy's routes (DESIGN.md section 4), each one definition: the library validates the request against it and
// the OpenAPI document is generated from it.

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

const ModelListSchema = z
  .object({
    object: z.literal('list'),
    data: z.array(z.object({ id: z.string(), object: z.literal('model'), created: z.number(), owned_by: z.string() })),
  })
  .openapi('ModelList');

const ModelSchema = z
  .object({ id: z.string(), object: z.literal('model'), created: z.number(), owned_by: z.string() })
  .openapi('Model');

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

const memgateHeaders = {
  'x-memgate-history-kept': { description: 'messages of the request forwarded', schema: { type: 'integer' as const } },
  'x-memgate-history-dropped': {
    description: 'messages of the request not forwarded',
    schema: { type: 'integer' as const },
  },
  'x-memgate-context-injected': { description: 'context records injected', schema: { type: 'integer' as const } },
  'x-memgate-tokens-saved': { description: 'tokens of the dropped messages', schema: { type: 'integer' as const } },
};

// Any other value leaves the switch on (as before the routes were declared): documented, never refused. No example
// value: the docs page puts an example in every request it shows, and its copied requests would then turn memory off.
const switchHeader = (description: string) => z.string().optional().openapi({ description });
const Switches = z.object({
  'x-memgate-filter': switchHeader('off: forward the history unfiltered'),
  'x-memgate-context': switchHeader('off: inject no stored context'),
  'x-memgate-store': switchHeader('off: do not store the exchange'),
});

/**
 * Route A's target, read from the raw path by the handler (parseProxyPath). Hono's routers cannot match a parameter
 * that spans segments and is followed by more (`https://host/v1/KEY/chat/completions`) beside static routes, so
 * these routes take the base URL as one segment, percent-encoded (as a client filling `{proxyUrl}` sends it); the
 * proxy app re-dispatches a base URL written as is or collapsed in that form (index.ts).
 */
const TARGET = '/api/v1/proxy/{proxyUrl}/{target_api_key}';
const DEFAULT = '/api/v1/proxy/default';
const TargetParams = z.object({
  proxyUrl: z.string().openapi({
    description: 'The target base URL as is (https://…), collapsed (https:/…) or percent-encoded',
    example: 'https%3A%2F%2Fapi.openai.com%2Fv1',
  }),
  target_api_key: z.string().openapi({ description: 'Sent to the target as Authorization: Bearer; never logged' }),
});

const error = (description: string) => ({ description, content: { 'application/json': { schema: ErrorSchema } } });
const errors = {
  400: error('invalid_request (incl. unknown model, refused target: code invalid_target) or invalid_messages'),
  401: error('authentication_error, code invalid_token'),
  403: error('permission_error, code insufficient_scope (needs scope `proxy`)'),
  404: error('no such proxy route (or model: code model_not_found)'),
  405: error("another method than the endpoint's, code method_not_allowed; `Allow` names the endpoint's"),
  413: error('body over 6 MB'),
  415: error('a body declared as another type than JSON, code unsupported_media_type (none declared is read as JSON)'),
  500: error('server_error, code internal_error'),
  502: error('upstream unreachable (server_error)'),
  504: error('upstream timeout (server_error)'),
};
/** Route A: what the target answers with an error status comes back as it is (DESIGN.md section 4). */
const passedThrough = {
  default: {
    description: "Any other status: the target's answer, status and body as it sent them",
    content: { '*/*': { schema: z.unknown() } },
  },
};
const json = <T>(schema: T, example: object) => ({
  required: true,
  content: { 'application/json': { schema, example } },
});
// Examples the page's "Try it" can send as they stand (a target's model is the target's to name).
const question = 'When is the launch?';
const askDefault = { model: 'memgate/default', messages: [{ role: 'user', content: question }] };
const askTarget = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: question }] };
const completed = {
  200: {
    description:
      'The completion (JSON), or with `stream: true` an SSE stream of chat.completion.chunk events ending with `data: [DONE]`',
    headers: memgateHeaders,
    content: { 'application/json': { schema: CompletionSchema }, 'text/event-stream': { schema: z.string() } },
  },
  ...errors,
};
const answered = {
  200: {
    description:
      'The Response (JSON), or with `stream: true` an SSE stream of Responses events (`event: response.created` … `event: response.completed`)',
    headers: memgateHeaders,
    content: { 'application/json': { schema: ResponseSchema }, 'text/event-stream': { schema: z.string() } },
  },
  ...errors,
};
const listed = {
  200: { description: 'The model list', content: { 'application/json': { schema: ModelListSchema } } },
  ...errors,
};
const tags = ['proxy'];

export const targetCompletionRoute = createRoute({
  method: 'post',
  path: `${TARGET}/chat/completions`,
  tags,
  summary: 'Chat completion through a target OpenAI-compatible API',
  description:
    'proxyUrl is the target base URL written into the path as is (https://…, a collapsed https:/…, or percent-encoded); ' +
    'target_api_key is sent upstream as Authorization: Bearer. History is filtered and stored context injected first.',
  request: { params: TargetParams, headers: Switches, body: json(ProxyRequestSchema, askTarget) },
  responses: { ...completed, ...passedThrough },
});

export const defaultCompletionRoute = createRoute({
  method: 'post',
  path: `${DEFAULT}/chat/completions`,
  tags,
  summary: 'Chat completion with the service default model',
  description: '`model` must equal DEFAULT_MODEL_ID (default memgate/default).',
  request: { headers: Switches, body: json(ProxyRequestSchema, askDefault) },
  responses: completed,
});

export const targetResponsesRoute = createRoute({
  method: 'post',
  path: `${TARGET}/responses`,
  tags,
  summary: 'Responses API through a target',
  description: 'Forwarded to the target /responses; the `input` messages are filtered and context injected first.',
  request: {
    params: TargetParams,
    headers: Switches,
    body: json(ResponsesRequestSchema, { model: 'gpt-4o-mini', input: question }),
  },
  responses: { ...answered, ...passedThrough },
});

export const defaultResponsesRoute = createRoute({
  method: 'post',
  path: `${DEFAULT}/responses`,
  tags,
  summary: 'Responses API with the service default model',
  description:
    'Translated to and from chat completions for the default model. Stateless: `previous_response_id` is refused (400).',
  request: { headers: Switches, body: json(ResponsesRequestSchema, { model: 'memgate/default', input: question }) },
  responses: answered,
});

export const targetModelsRoute = createRoute({
  method: 'get',
  path: `${TARGET}/models`,
  tags,
  summary: "The target's model list",
  request: { params: TargetParams },
  responses: { ...listed, ...passedThrough },
});

export const defaultModelsRoute = createRoute({
  method: 'get',
  path: `${DEFAULT}/models`,
  tags,
  summary: 'The default model (DEFAULT_MODEL_ID)',
  responses: listed,
});

const ModelParams = z.object({
  model: z.string().openapi({
    description: 'The model id; it may hold slashes, written as they are or percent-encoded',
    example: 'memgate/default',
  }),
});
const retrieved = {
  200: { description: 'The model', content: { 'application/json': { schema: ModelSchema } } },
  ...errors,
};

export const targetModelRoute = createRoute({
  method: 'get',
  path: `${TARGET}/models/{model}`,
  tags,
  summary: "One model of the target's (OpenAI's retrieve model)",
  description:
    "Forwarded to the target's `/models/{model}`, the id as the caller wrote it. The endpoint is the first `/models/` after a base URL and a key: a base URL whose own path holds `/models/` must be percent-encoded.",
  request: { params: TargetParams.extend(ModelParams.shape) },
  responses: { ...retrieved, ...passedThrough },
});

export const defaultModelRoute = createRoute({
  method: 'get',
  path: `${DEFAULT}/models/{model}`,
  tags,
  summary: 'The default model by its id (OpenAI retrieve model)',
  description: 'DEFAULT_MODEL_ID as /models lists it; any other id is a 404 (not_found_error, code model_not_found).',
  request: { params: ModelParams },
  responses: retrieved,
});

/** Every proxy route, for the document of a runtime that does not serve them (the AWS docs function). */
export const proxyRoutes = [
  targetCompletionRoute,
  defaultCompletionRoute,
  targetResponsesRoute,
  defaultResponsesRoute,
  targetModelsRoute,
  defaultModelsRoute,
  targetModelRoute,
  defaultModelRoute,
];
