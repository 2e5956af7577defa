import type { ChatCompletionChunk } from '@memgate/core';
import { describe, expect, it } from 'vitest';
import { inputToMessages, messagesToInput } from './input.ts';
import { responseShell } from './output.ts';
import { createResponseStream } from './stream.ts';
import { toChatRequest } from './to-chat.ts';

const chunk = (delta: Record<string, unknown>, finish: string | null = null): ChatCompletionChunk => ({
  id: 'c',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

describe('the Responses stream of chat chunks', () => {
  const shell = responseShell({ model: 'm', input: 'x' }, 'm');

  it('finishes the text item before a tool call starts, and ends incomplete when the answer was cut (its last item too)', () => {
    const stream = createResponseStream(shell);
    const events = [
      ...stream.start(),
      ...stream.push(chunk({ role: 'assistant', content: 'Let me look.' })),
      ...stream.push(
        chunk({ tool_calls: [{ index: 0, id: 'call_1', function: { name: 'find', arguments: '{"q"' } }] }),
      ),
      ...stream.push(chunk({ tool_calls: [{ index: 0, function: { arguments: ':1}' } }] })),
      ...stream.push(chunk({}, 'length')),
      ...stream.finish(),
    ];
    expect(events.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.incomplete',
    ]);
    const last = events.at(-1) as unknown as {
      response: { status: string; incomplete_details: unknown; output: unknown[] };
    };
    expect(last.response).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      output: [
        { type: 'message', status: 'completed', content: [{ text: 'Let me look.' }] },
        { type: 'function_call', call_id: 'call_1', name: 'find', arguments: '{"q":1}', status: 'incomplete' },
      ],
    });
    // The item the model was writing when it stopped is done as incomplete; the text before it was whole.
    const done = events.filter((event) => event.type === 'response.output_item.done');
    expect(done.map((event) => (event.item as { status: string }).status)).toEqual(['completed', 'incomplete']);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    expect(stream.replyText()).toBe('Let me look.');
  });

  it('keeps usage from the usage chunk for response.completed', () => {
    const stream = createResponseStream(shell);
    stream.start();
    stream.push(chunk({ content: 'Hi' }, 'stop'));
    stream.push({ ...chunk({}), choices: [], usage: { prompt_tokens: 4, completion_tokens: 1, total_tokens: 5 } });
    const completed = stream.finish().at(-1) as unknown as { type: string; response: { usage: unknown } };
    expect(completed.type).toBe('response.completed');
    expect(completed.response.usage).toEqual({
      input_tokens: 4,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 1,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 5,
    });
  });
});

describe('input items as chat messages', () => {
  const input = [
    {
      role: 'user' as const,
      content: [
        { type: 'input_text', text: 'Weather in ' },
        { type: 'input_text', text: 'Paris?' },
      ],
    },
    { type: 'reasoning', id: 'rs_1', summary: [] },
    { type: 'function_call', call_id: 'a', name: 'weather', arguments: '{}' },
    { type: 'function_call', call_id: 'b', name: 'time', arguments: '{}' },
    { type: 'function_call_output', call_id: 'a', output: 'sunny' },
    { type: 'function_call_output', call_id: 'b', output: [{ type: 'input_text', text: 'noon' }] },
  ];

  it('route A: groups parallel calls into one assistant message and gives back the very items', () => {
    const { messages, itemsOf } = inputToMessages(input, false);
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
    // The text is only read (scored, searched, captured), one part a line, as a chat message's parts are.
    expect(messages[0]?.content).toEqual([
      { type: 'text', text: 'Weather in ' },
      { type: 'text', text: 'Paris?' },
    ]);
    expect(messages[1]?.tool_calls?.map((call) => call.id)).toEqual(['a', 'b']);
    expect(messagesToInput(messages, itemsOf)).toEqual(input);
    const injected = { role: 'system' as const, content: 'context' };
    expect(messagesToInput([injected, ...messages], itemsOf)[0]).toEqual({ role: 'system', content: 'context' });
  });

  it('route B: leaves reasoning out, refuses items a chat model cannot take', () => {
    const { messages } = inputToMessages(input, true);
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
    expect(messages[3]?.content).toBe('noon');
    expect(() => inputToMessages([{ type: 'web_search_call', id: 'ws' }], true)).toThrow(/not supported/);
  });

  it('route B: text.format json_schema becomes response_format json_schema', () => {
    const format = { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true };
    const chat = toChatRequest({ model: 'm', input: 'x', text: { format } });
    expect(chat.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'answer', schema: { type: 'object' }, strict: true },
    });
  });
});
