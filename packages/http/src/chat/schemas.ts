import { z } from '@hono/zod-openapi';

export const ChatMessage = z
  .object({
    role: z.enum(['user', 'assistant', 'system']),
    content: z.string().max(1_000_000),
    id: z.string().max(200).optional(),
  })
  .openapi('ChatStreamMessage');

/** An OpenAI function-tool definition; the model may ask for it, the service never runs it. */
export const ChatTool = z
  .object({
    type: z.literal('function'),
    function: z.object({
      name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, underscores or dashes'),
      description: z.string().max(10_000).optional(),
      parameters: z.record(z.string(), z.unknown()).optional(),
      // Structured outputs: the model must then follow `parameters` exactly. Dropped, the model would not be held to it.
      strict: z.boolean().optional(),
    }),
  })
  .openapi('ChatTool');

export const ChatBody = z
  .object({
    // An optional field sent as null means what leaving it out means (chatId null starts a new chat): clients keep
    // "not set" as null in their state, and strict tool schemas make models send null for what they leave unset.
    chatId: z.string().min(1).max(200).nullish(),
    chat_history: z.array(ChatMessage).min(1, 'must hold at least one message').max(500, 'at most 500 messages'),
    persona: z.string().max(10_000).nullish(),
    scope: z.enum(['internal', 'external']).nullish(),
    tools: z.array(ChatTool).max(128).nullish(),
  })
  .refine((body) => body.chat_history.at(-1)?.role === 'user', {
    message: 'the last message must be from the user',
    path: ['chat_history'],
  })
  // The last message is the question: context is searched with it and the answer is to it.
  .refine((body) => body.chat_history.at(-1)?.content.trim() !== '', {
    message: 'the last message must not be empty',
    path: ['chat_history'],
  })
  .openapi('ChatStreamRequest');
export type ChatBody = z.infer<typeof ChatBody>;

export const ChatError = z.object({ message: z.string() }).openapi('ChatError');

export const ReplayParams = z.object({
  replaySessionID: z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name: 'replaySessionID', in: 'path' } }),
});

/** The events, documented (the body itself is text/event-stream). */
export const ChatEventSchema = z.string().openapi({
  example:
    'data: {"type":"thinking_update","content":"Searching your internal context for \\"…\\""}\n\n' +
    'data: {"type":"final_response","content":"…","json":{"sources":[],"model":"memgate/extractive","usage":{},"tool_calls":[]}}\n\n' +
    'data: {"type":"metadata","content":{"chatId":"…","title":"…","replaySessionID":"…"}}\n\n' +
    'data: [DONE]\n\n',
});
