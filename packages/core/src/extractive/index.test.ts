import { describe, expect, it } from 'vitest';
import { countTokens } from '../history/index.ts';
import { createExtractiveModel, formatContextMessage, NOTHING_STORED, parseContextMessage } from './index.ts';

const passages = [
  {
    fileName: 'faq.md',
    text: 'Our office opens at 9 am. Parking is free for visitors.\nThe cafeteria serves lunch until 2 pm.',
  },
  { fileName: 'hr.md', text: 'Holidays must be requested two weeks ahead. Sick days need no request.' },
];
const context = { role: 'system' as const, content: formatContextMessage(passages) };

describe('context message format', () => {
  it('round-trips passages, including multi-line text', () => {
    expect(parseContextMessage(formatContextMessage(passages))).toEqual(passages);
    expect(parseContextMessage('You are helpful.')).toEqual([]);
  });
});

describe('extractive responder', () => {
  const model = createExtractiveModel({ clock: () => new Date('2026-01-01T00:00:00Z') });

  it('answers with the sentences that best match the question and real token counts', async () => {
    const completion = await model.complete(
      { model: 'memgate/default', messages: [context, { role: 'user', content: 'When must holidays be requested?' }] },
      {},
    );
    const content = completion.choices[0]?.message.content as string;
    expect(content).toBe('Holidays must be requested two weeks ahead.');
    expect(completion.model).toBe('memgate/extractive');
    expect(completion.usage?.completion_tokens).toBe(countTokens(content));
    expect(completion.choices[0]?.message.tool_calls).toBeUndefined();
  });

  it('answers in text and never returns tool calls when given tools (it cannot decide to call one)', async () => {
    const completion = await model.complete(
      {
        model: 'x',
        tools: [{ type: 'function', function: { name: 'book_parking', parameters: { type: 'object' } } }],
        messages: [context, { role: 'user', content: 'Is parking free for visitors?' }],
      },
      {},
    );
    expect(completion.choices[0]?.message).toEqual({ role: 'assistant', content: 'Parking is free for visitors.' });
    expect(completion.choices[0]?.finish_reason).toBe('stop');
  });

  it('does not echo a stored question or quote a stored answer twice', async () => {
    const stored = formatContextMessage([
      {
        fileName: 'conversation.txt',
        text: 'User: When does the office open?\n\nAssistant: Our office opens at 9 am.',
      },
      ...passages,
    ]);
    const completion = await model.complete(
      {
        model: 'x',
        messages: [
          { role: 'system', content: stored },
          { role: 'user', content: 'When does the office open?' },
        ],
      },
      {},
    );
    expect(completion.choices[0]?.message.content).toBe('Our office opens at 9 am.');
  });

  it('says plainly when nothing relevant is stored', async () => {
    const completion = await model.complete(
      { model: 'x', messages: [{ role: 'user', content: 'Where is parking?' }] },
      {},
    );
    expect(completion.choices[0]?.message.content).toBe(NOTHING_STORED);
  });

  it('honours max_tokens with finish_reason length', async () => {
    const completion = await model.complete(
      { model: 'x', max_tokens: 3, messages: [context, { role: 'user', content: 'Is parking free for visitors?' }] },
      {},
    );
    expect(completion.choices[0]?.finish_reason).toBe('length');
    expect(completion.usage?.completion_tokens).toBeLessThanOrEqual(3);
  });

  it('streams role, content, finish and usage chunks', async () => {
    const payloads: string[] = [];
    for await (const payload of model.stream(
      {
        model: 'x',
        stream: true,
        stream_options: { include_usage: true },
        messages: [context, { role: 'user', content: 'Until when is lunch served at the cafeteria?' }],
      },
      {},
    )) {
      payloads.push(payload);
    }
    const chunks = payloads.map((payload) => JSON.parse(payload));
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('The cafeteria serves lunch until 2 pm.');
    expect(chunks.at(-2).choices[0].finish_reason).toBe('stop');
    expect(chunks.at(-1)).toMatchObject({
      object: 'chat.completion.chunk',
      choices: [],
      usage: { completion_tokens: countTokens(text) },
    });
  });
});
