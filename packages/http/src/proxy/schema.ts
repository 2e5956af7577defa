import { z } from '@hono/zod-openapi';
import { type ChatCompletionRequest, giveWay } from '@memgate/core';
import { fromZodError } from '../errors/index.ts';

const ContentPart = z.object({ type: z.string() }).loose();

export const ProxyMessageSchema = z
  .object({
    role: z.enum(['system', 'user', 'assistant', 'tool', 'developer']),
    content: z.union([z.string(), z.array(ContentPart), z.null()]).optional(),
    name: z.string().optional(),
  })
  .loose()
  .refine((message) => message.content != null || (message.role === 'assistant' && 'tool_calls' in message), {
    message: 'content is required (null only on an assistant message with tool_calls)',
    path: ['content'],
  });

const penalty = z.number().min(-2).max(2);

/** Spec 4.2's request table; any other OpenAI parameter (tools, tool_choice, response_format, stop, n, seed, user, stream_options...) passes through. */
export const ProxyRequestSchema = z
  .object({
    model: z.string().min(1),
    messages: z.array(ProxyMessageSchema).min(1, 'messages must not be empty'),
    max_tokens: z.number().int().positive().optional(),
    temperature: z.number().min(0).max(2).optional(),
    top_p: z.number().min(0).max(1).optional(),
    frequency_penalty: penalty.optional(),
    presence_penalty: penalty.optional(),
    stream: z.boolean().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).loose().nullable().optional(),
    tools: z.array(z.object({ type: z.string() }).loose()).optional(),
    n: z.number().int().min(1).max(128).optional(),
  })
  .loose()
  .openapi('ChatCompletionRequest');

export type ProxyRequest = z.infer<typeof ProxyRequestSchema>;

function parseWhole(body: Record<string, unknown>): ChatCompletionRequest {
  const result = ProxyRequestSchema.safeParse(body);
  if (result.success) return result.data as unknown as ChatCompletionRequest;
  const first = result.error.issues[0];
  throw fromZodError(result.error, first?.path[0] === 'messages' ? 'invalid_messages' : 'invalid_request');
}

/** Messages checked in one go; 100,000 at once hold the event loop ~100 ms (the body limit allows that many). */
const MESSAGES_PER_SLICE = 2_000;
const MessageSlice = z.array(ProxyMessageSchema);

/** Validates a parsed body; a problem with `messages` is code `invalid_messages`, anything else `invalid_request`. */
export async function parseRequest(body: Record<string, unknown>): Promise<ChatCompletionRequest> {
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length <= MESSAGES_PER_SLICE) return parseWhole(body);
  const checked: ChatCompletionRequest['messages'] = [];
  for (let start = 0; start < messages.length; start += MESSAGES_PER_SLICE) {
    await giveWay();
    const result = MessageSlice.safeParse(messages.slice(start, start + MESSAGES_PER_SLICE));
    if (!result.success) {
      // Paths within the slice become paths within the request ("messages[2041].content").
      const issues = result.error.issues.map((issue) => ({
        ...issue,
        path: ['messages', Number(issue.path[0]) + start, ...issue.path.slice(1)],
      }));
      throw fromZodError({ issues } as unknown as typeof result.error, 'invalid_messages');
    }
    for (const message of result.data) checked.push(message as ChatCompletionRequest['messages'][number]);
  }
  // Everything else is checked with one message standing in for all of them.
  return { ...parseWhole({ ...body, messages: checked.slice(0, 1) }), messages: checked };
}
