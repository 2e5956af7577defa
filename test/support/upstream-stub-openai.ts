import type { ServerResponse } from 'node:http';

/** A tool call the stub answers with: its arguments streamed in these pieces (joined when not streamed). */
export interface StubToolCall {
  id?: string;
  name: string;
  arguments: string[];
}

const usageOf = (reply: string) => {
  const words = reply.split(/\s+/).filter(Boolean).length;
  return { input_tokens: 10, output_tokens: words, total_tokens: 10 + words };
};

/** A Response object as OpenAI's /responses returns it (text, or one function call). */
export function responseObject(reply: string, model: string, toolCall?: StubToolCall) {
  const usage = usageOf(reply);
  const output = toolCall
    ? [
        {
          id: 'fc_stub',
          type: 'function_call',
          status: 'completed',
          call_id: toolCall.id ?? 'call_stub',
          name: toolCall.name,
          arguments: toolCall.arguments.join(''),
        },
      ]
    : [
        {
          id: 'msg_stub',
          type: 'message',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: reply, annotations: [] }],
        },
      ];
  return {
    id: 'resp_stub',
    object: 'response',
    created_at: 1,
    status: 'completed',
    error: null,
    incomplete_details: null,
    model,
    output,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    usage: {
      ...usage,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    },
  };
}

/** Streams a text reply as OpenAI's Responses events, one output_text.delta per piece. */
export function writeResponseEvents(res: ServerResponse, model: string, pieces: string[]): void {
  let sequence = 0;
  const send = (type: string, fields: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`);
  const reply = pieces.join('');
  const done = responseObject(reply, model);
  const start = { ...done, status: 'in_progress', output: [], usage: null };
  const at = { item_id: 'msg_stub', output_index: 0, content_index: 0 };
  send('response.created', { response: start });
  send('response.in_progress', { response: start });
  send('response.output_item.added', {
    output_index: 0,
    item: { id: 'msg_stub', type: 'message', status: 'in_progress', role: 'assistant', content: [] },
  });
  send('response.content_part.added', { ...at, part: { type: 'output_text', text: '', annotations: [] } });
  for (const piece of pieces) send('response.output_text.delta', { ...at, delta: piece, logprobs: [] });
  send('response.output_text.done', { ...at, text: reply, logprobs: [] });
  send('response.content_part.done', { ...at, part: { type: 'output_text', text: reply, annotations: [] } });
  send('response.output_item.done', { output_index: 0, item: done.output[0] });
  send('response.completed', { response: done });
  res.end();
}

/** A chat completion that calls one tool. */
export function toolCallCompletion(model: string, call: StubToolCall) {
  return {
    id: 'chatcmpl-stub-tool',
    object: 'chat.completion',
    created: 1,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: call.id ?? 'call_stub',
              type: 'function',
              function: { name: call.name, arguments: call.arguments.join('') },
            },
          ],
        },
        finish_reason: 'tool_calls',
      },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}

/** The chat.completion.chunk deltas of one tool call: the name first, then each piece of the arguments alone. */
export function toolCallDeltas(call: StubToolCall): Record<string, unknown>[] {
  return [
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { index: 0, id: call.id ?? 'call_stub', type: 'function', function: { name: call.name, arguments: '' } },
      ],
    },
    ...call.arguments.map((piece) => ({ tool_calls: [{ index: 0, function: { arguments: piece } }] })),
  ];
}

/** GET /models as OpenAI answers it. */
export function modelList(model: string) {
  return { object: 'list', data: [{ id: model, object: 'model', created: 1, owned_by: 'stub' }] };
}
