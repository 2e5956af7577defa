import { z } from '@hono/zod-openapi';
import { validateInSlices } from '../errors/index.ts';

const ContentPart = z.object({ type: z.string() }).loose();

export const ProxyMessageSchema = z
  .object({
    role: z.enum(['system', 'user', 'assistant', 'tool', 'function', 'developer']),
    content: z
      .union([z.string(), z.array(ContentPart), z.null()], {
        error: 'must be a string, an array of content parts (each with a type) or null',
      })
      .optional(),
    name: z.string().optional(),
  })
  .loose()
  .refine(
    (message) =>
      message.content != null ||
      (message.role === 'assistant' && ('tool_calls' in message || 'function_call' in message)),
    {
      message: 'content is required (null only on an assistant message with tool_calls or function_call)',
      path: ['content'],
    },
  );

const penalty = z.number().min(-2).max(2);

/**
 * Spec 4.2's request table; any other OpenAI parameter (tools, tool_choice, response_format, stop, n, seed, user, stream_options...) passes through.
 * Optional parameters may be null, as in OpenAI's API (openai-python sends `None` so): null means left out.
 */
export const ProxyRequestSchema = z
  .object({
    model: z.string().min(1),
    messages: z.array(ProxyMessageSchema).min(1, 'messages must not be empty'),
    max_tokens: z.number().int().positive().nullable().optional(),
    temperature: z.number().min(0).max(2).nullable().optional(),
    top_p: z.number().min(0).max(1).nullable().optional(),
    frequency_penalty: penalty.nullable().optional(),
    presence_penalty: penalty.nullable().optional(),
    stream: z.boolean().nullable().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).loose().nullable().optional(),
    tools: z
      .array(z.object({ type: z.string() }).loose())
      .nullable()
      .optional(),
    n: z.number().int().min(1).max(128).nullable().optional(),
  })
  .loose()
  .openapi('ChatCompletionRequest');

export type ProxyRequest = z.infer<typeof ProxyRequestSchema>;

/** `messages` of a long request, checked in slices before the route's validator sees the rest of the body. */
export const messagesInSlices = validateInSlices('messages', ProxyMessageSchema, 'invalid_messages');
