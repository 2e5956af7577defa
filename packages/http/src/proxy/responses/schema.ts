import { z } from '@hono/zod-openapi';
import { validateInSlices } from '../../errors/index.ts';

/** One `input` item: a message (`role`, optionally `type: "message"`) or a typed item (function_call, …). */
const InputItemSchema = z
  .object({
    type: z.string().optional(),
    role: z.enum(['user', 'assistant', 'system', 'developer']).optional(),
  })
  .loose()
  .refine((item) => item.type !== undefined || item.role !== undefined, {
    message: 'an input item needs a role (a message) or a type',
  });

/**
 * The Responses API request (DESIGN.md section 4). Only what the proxy reads is checked here; every other field is
 * kept for route A's target, and route B refuses what it cannot serve when it translates.
 */
export const ResponsesRequestSchema = z
  .object({
    model: z.string().min(1),
    input: z.union(
      [z.string().min(1, 'input must not be empty'), z.array(InputItemSchema).min(1, 'input must not be empty')],
      { error: 'must be a string or an array of input items (messages or typed items)' },
    ),
    instructions: z.string().nullable().optional(),
    stream: z.boolean().nullable().optional(),
    max_output_tokens: z.number().int().positive().nullable().optional(),
    temperature: z.number().min(0).max(2).nullable().optional(),
    top_p: z.number().min(0).max(1).nullable().optional(),
    tools: z.array(z.object({ type: z.string() }).loose()).optional(),
    tool_choice: z.union([z.string(), z.object({ type: z.string() }).loose()]).optional(),
    parallel_tool_calls: z.boolean().nullable().optional(),
    previous_response_id: z.string().nullable().optional(),
    text: z
      .object({ format: z.object({ type: z.string() }).loose().optional() })
      .loose()
      .nullable()
      .optional(),
  })
  .loose()
  .openapi('ResponsesRequest');

export type ResponsesRequest = z.infer<typeof ResponsesRequestSchema>;
export type InputItem = z.infer<typeof InputItemSchema>;

/** `input` items of a long request, checked in slices as chat messages are (100,000 at once held the loop ~160 ms). */
export const inputInSlices = validateInSlices('input', InputItemSchema, 'invalid_messages');
