import { countTokens as countExactly } from 'gpt-tokenizer';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { estimateTokens } from '../history/estimate.ts';
import { EXACT_TOKENS } from '../history/tokens.ts';
import { createExtractiveModel, formatContextMessage, NOTHING_STORED, parseContextMessage } from './index.ts';

const passages = [
  {
    fileName: 'faq.md',
    text: 'Our office opens at 9 am. Parking is free for visitors.\nThe cafeteria serves lunch until 2 pm.',
  },
  { fileName: 'hr.md', text: 'Holidays must be requested two weeks ahead. Sick days need no request.' },
];
const context = { role: 'system' as const, content: formatContextMessage(passages) };

// The tokenizer, watched: its table is most of a second of a cold start, so the responder may only run it to decide.
const tokenizer = vi.hoisted(() => ({ calls: 0 }));
vi.mock('gpt-tokenizer', async (importOriginal) => {
  const actual = await importOriginal<typeof import('gpt-tokenizer')>();
  const watched =
    <A extends unknown[], R>(run: (...args: A) => R) =>
    (...args: A): R => {
      tokenizer.calls += 1;
      return run(...args);
    };
  return {
    ...actual,
    countTokens: watched(actual.countTokens),
    encode: watched(actual.encode),
    decode: watched(actual.decode),
  };
});
beforeEach(() => {
  tokenizer.calls = 0;
});

describe('context message format', () => {
  it('round-trips passages, including multi-line text', () => {
    expect(parseContextMessage(formatContextMessage(passages))).toEqual(passages);
    expect(parseContextMessage('You are helpful.')).toEqual([]);
  });
});

describe('extractive responder', () => {
  const model = createExtractiveModel({ clock: () => new Date('2026-01-01T00:00:00Z'), tokens: EXACT_TOKENS });
  /** The answer to `question` over a context message holding `stored`. */
  const answerOver = async (stored: string, question: string) => {
    const messages = [
      { role: 'system' as const, content: stored },
      { role: 'user' as const, content: question },
    ];
    return (await model.complete({ model: 'x', messages }, {})).choices[0]?.message.content;
  };

  it('answers with the sentences that best match the question, its usage estimated without the tokenizer', async () => {
    const completion = await model.complete(
      { model: 'memgate/default', messages: [context, { role: 'user', content: 'When must holidays be requested?' }] },
      {},
    );
    const content = completion.choices[0]?.message.content as string;
    expect(content).toBe('Holidays must be requested two weeks ahead.');
    expect(completion.model).toBe('memgate/extractive');
    expect(completion.usage?.completion_tokens).toBe(estimateTokens(content));
    expect(completion.usage?.prompt_tokens).toBeGreaterThan(estimateTokens(context.content));
    expect(completion.choices[0]?.message.tool_calls).toBeUndefined();
    expect(tokenizer.calls).toBe(0);
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
    expect(await answerOver(stored, 'When does the office open?')).toBe('Our office opens at 9 am.');
  });

  it('quotes a whole sentence once, not the stored answers a token limit cut short before it', async () => {
    const stored = formatContextMessage([
      { fileName: 'conversation-1.txt', text: 'User: When does the office open?\n\nAssistant: Our office' },
      { fileName: 'conversation-2.txt', text: 'User: When does the office open?\n\nAssistant: Our office opens' },
      ...passages,
    ]);
    expect(await answerOver(stored, 'When does the office open?')).toBe('Our office opens at 9 am.');
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
    const content = completion.choices[0]?.message.content as string;
    expect(countExactly(content)).toBeLessThanOrEqual(3);
    expect(content.length).toBeGreaterThan(0);
    expect(completion.usage?.completion_tokens).toBe(3); // cut at the limit: all of it used
  });

  it('decides max_tokens exactly, and without the tokenizer when the answer has no more bytes than the limit', async () => {
    const question = { role: 'user' as const, content: 'Is parking free for visitors?' };
    const roomy = await model.complete({ model: 'x', max_tokens: 1_000, messages: [context, question] }, {});
    expect(roomy.choices[0]?.finish_reason).toBe('stop');
    expect(tokenizer.calls).toBe(0);
    // 'Parking is free for visitors.' is 6 tokens in 29 bytes: a limit in between needs the exact count.
    const answer = roomy.choices[0]?.message.content as string;
    expect(countExactly(answer)).toBe(6);
    const exact = await model.complete({ model: 'x', max_tokens: 6, messages: [context, question] }, {});
    expect(exact.choices[0]?.finish_reason).toBe('stop');
    expect(exact.choices[0]?.message.content).toBe(answer);
    expect(tokenizer.calls).toBeGreaterThan(0);
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
      usage: { completion_tokens: estimateTokens(text) },
    });
  });
});

describe('extractive responder without exact counting (the chat stream)', () => {
  const model = createExtractiveModel({ clock: () => new Date('2026-01-01T00:00:00Z') });
  const question = { role: 'user' as const, content: 'Is parking free for visitors?' };

  it('answers and reports usage as the exact one does, never running the tokenizer', async () => {
    const completion = await model.complete({ model: 'x', messages: [context, question] }, {});
    expect(completion.choices[0]?.message.content).toBe('Parking is free for visitors.');
    expect(completion.usage?.completion_tokens).toBe(estimateTokens('Parking is free for visitors.'));
    expect(tokenizer.calls).toBe(0);
  });

  it('refuses a token limit it cannot honour exactly, naming the field, before answering', () => {
    expect(() => model.check?.({ model: 'x', max_tokens: 3, messages: [context, question] })).toThrow(
      expect.objectContaining({ field: 'max_tokens' }),
    );
    expect(() => model.check?.({ model: 'x', max_completion_tokens: 3, messages: [context, question] })).toThrow(
      /cannot honour max_completion_tokens/,
    );
    expect(() => model.check?.({ model: 'x', messages: [context, question] })).not.toThrow();
    expect(tokenizer.calls).toBe(0);
  });
});
