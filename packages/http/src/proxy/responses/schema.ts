import { z } from '@hono/zod-openapi';
import { giveWay } from '@memgate/core';
import { fromZodError } from '../../errors/index.ts';

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
    input: z.union([
      z.string().min(1, 'input must not be empty'),
      z.array(InputItemSchema).min(1, 'input must not be empty'),
    ]),
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

function parseWhole(body: Record<string, unknown>): ResponsesRequest {
  const result = ResponsesRequestSchema.safeParse(body);
  if (result.success) return result.data;
  const first = result.error.issues[0];
  throw fromZodError(result.error, first?.path[0] === 'input' ? 'invalid_messages' : 'invalid_request');
}

/** Input items checked in one go, as chat messages are (proxy/schema.ts): 100,000 at once held the loop ~160 ms. */
const ITEMS_PER_SLICE = 2_000;
const ItemSlice = z.array(InputItemSchema);

/** Validates a parsed body; a problem with `input` is code `invalid_messages`, anything else `invalid_request`. */
export async function parseResponsesRequest(body: Record<string, unknown>): Promise<ResponsesRequest> {
  const input = body.input;
  if (!Array.isArray(input) || input.length <= ITEMS_PER_SLICE) return parseWhole(body);
  const checked: InputItem[] = [];
  for (let start = 0; start < input.length; start += ITEMS_PER_SLICE) {
    await giveWay();
    const result = ItemSlice.safeParse(input.slice(start, start + ITEMS_PER_SLICE));
    if (!result.success) {
      // Paths within the slice become paths within the request ("input[2041].role").
      const issues = result.error.issues.map((issue) => ({
        ...issue,
        path: ['input', Number(issue.path[0]) + start, ...issue.path.slice(1)],
      }));
      throw fromZodError({ issues } as unknown as typeof result.error, 'invalid_messages');
    }
    for (const item of result.data) checked.push(item);
  }
  // Everything else is checked with one item standing in for all of them.
  return { ...parseWhole({ ...body, input: checked.slice(0, 1) }), input: checked };
}
