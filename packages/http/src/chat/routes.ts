import { createRoute } from '@hono/zod-openapi';
import { ChatBody, ChatError, ChatEventSchema, ReplayParams } from './schemas.ts';

const json = <T>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });
const stream = (description: string) => ({
  content: { 'text/event-stream': { schema: ChatEventSchema } },
  description,
});
const errors = {
  401: json(ChatError, 'missing, invalid or expired token'),
  405: json(ChatError, "another method than the route's, before any token check; `Allow` names the route's"),
  403: json(ChatError, "missing 'chat' scope, or a chat or replay of another user"),
  500: json(ChatError, 'internal error'),
};
const tags = ['chat'];

export const generateRoute = createRoute({
  method: 'post',
  path: '/api/v1/chat/generate/stream',
  tags,
  summary:
    'Stream thinking steps, the answer (with sources, model, usage, tool calls) and metadata as SSE (scope chat)',
  request: {
    body: {
      content: {
        'application/json': {
          schema: ChatBody,
          example: { chat_history: [{ role: 'user', content: 'Who owns the budget?' }] },
        },
      },
      required: true,
    },
  },
  responses: {
    200: stream(
      'thinking_update events, one final_response, one metadata, then data: [DONE]; a failure after the stream ' +
        'started: metadata (the session holds the question), the error event, then data: [DONE]',
    ),
    400: json(ChatError, 'invalid request, or an unknown chatId'),
    413: json(ChatError, 'body over 6 MB'),
    415: json(ChatError, 'a body declared as another type than JSON (none declared is read as JSON)'),
    ...errors,
  },
});

export const replayRoute = createRoute({
  method: 'get',
  path: '/api/v1/chat/replay/{replaySessionID}',
  tags,
  summary: 'Stream the recorded events of one answer again (owner only, scope chat)',
  request: { params: ReplayParams },
  responses: {
    200: stream('the recorded events, then data: [DONE]'),
    404: json(ChatError, 'unknown or expired replaySessionID'),
    ...errors,
  },
});

/** Every chat route, for the document of a runtime that does not serve them (the AWS docs function). */
export const chatRoutes = [generateRoute, replayRoute];
