import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Embedder } from '../context/ports.ts';
import type { ChatMessage } from '../model/index.ts';
import { createCachedEmbedder, filterHistory, filterHistoryByRelevance } from './index.ts';

const msg = (role: ChatMessage['role'], content: string): ChatMessage => ({ role, content });

describe('filterHistory', () => {
  const history = [
    msg('system', 'be kind'),
    msg('user', 'old relevant'),
    msg('assistant', 'old irrelevant'),
    msg('user', 'recent 1'),
    msg('assistant', 'recent 2'),
    msg('user', 'last question'),
  ];

  it('keeps system, the last user message and keepRecent before it; drops dissimilar older ones', async () => {
    const result = await filterHistory(history, {
      lastUserSimilarity: (index) => (index === 1 ? 0.9 : 0.05),
      keepRecent: 2,
      minSimilarity: 0.2,
      tokenBudget: 10_000,
    });
    expect(result.messages.map((message) => message.content)).toEqual([
      'be kind',
      'old relevant',
      'recent 1',
      'recent 2',
      'last question',
    ]);
    expect(result).toMatchObject({ kept: 5, dropped: 1 });
    expect(result.tokensSaved).toBeGreaterThan(0);
  });

  it('drops similar older messages that do not fit the token budget', async () => {
    const result = await filterHistory(history, {
      lastUserSimilarity: () => 1,
      keepRecent: 0,
      minSimilarity: 0.2,
      tokenBudget: 4,
      countTokens: (message) => (message.role === 'system' || message.content === 'last question' ? 2 : 3),
    });
    expect(result.messages.map((message) => message.content)).toEqual(['be kind', 'last question']);
    expect(result.tokensSaved).toBe(12);
  });

  it('always preserves order and the required messages (property)', async () => {
    const role = fc.constantFrom<ChatMessage['role']>('system', 'user', 'assistant');
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(role, fc.double({ min: 0, max: 1, noNaN: true })), { maxLength: 30 }),
        fc.nat(6),
        async (items, keepRecent) => {
          const messages = items.map(([r], index) => msg(r, `m${index}`));
          const result = await filterHistory(messages, {
            lastUserSimilarity: (index) => items[index]?.[1] ?? 0,
            keepRecent,
            minSimilarity: 0.5,
            tokenBudget: 60,
          });
          const positions = result.messages.map((message) => messages.indexOf(message));
          expect(positions).toEqual([...positions].sort((a, b) => a - b));
          for (const message of messages) if (message.role === 'system') expect(result.messages).toContain(message);
          const lastUser = messages.findLastIndex((message) => message.role === 'user');
          if (lastUser >= 0) expect(result.messages).toContain(messages[lastUser]);
          expect(result.kept + result.dropped).toBe(messages.length);
        },
      ),
    );
  });

  it('never keeps a tool result without the assistant message that called it', async () => {
    const call: ChatMessage = {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 't1', type: 'function', function: { name: 'f', arguments: '{}' } }],
    };
    const messages = [
      msg('user', 'a'),
      call,
      { role: 'tool', content: 'result', tool_call_id: 't1' } as ChatMessage,
      msg('user', 'b'),
    ];
    const result = await filterHistory(messages, {
      lastUserSimilarity: (index) => (index === 2 ? 1 : 0),
      keepRecent: 0,
      minSimilarity: 0.5,
      tokenBudget: 1000,
    });
    expect(result.messages.map((message) => message.role)).toEqual(['user']);
  });

  it('keeps a legacy function call (function_call, then a function message) whole or not at all', async () => {
    const messages: ChatMessage[] = [
      msg('user', 'a'),
      { role: 'assistant', content: null, function_call: { name: 'f', arguments: '{}' } },
      { role: 'function', name: 'f', content: 'result' },
      msg('user', 'b'),
    ];
    const options = { keepRecent: 0, minSimilarity: 0.5, tokenBudget: 1000 };
    const result = await filterHistory(messages, { ...options, lastUserSimilarity: (index) => (index === 2 ? 1 : 0) });
    expect(result.messages.map((message) => message.role)).toEqual(['user']);
    const caller = await filterHistory(messages, { ...options, lastUserSimilarity: (index) => (index === 1 ? 1 : 0) });
    expect(caller.messages.map((message) => message.role)).toEqual(['user']);
  });
});

describe('tool messages and their callers', () => {
  const call = (id: string): ChatMessage => ({
    role: 'assistant',
    content: null,
    tool_calls: [{ id, type: 'function', function: { name: 'f', arguments: '{}' } }],
  });
  const result = (id: string): ChatMessage =>
    ({ role: 'tool', content: `result ${id}`, tool_call_id: id }) as ChatMessage;

  it('pairs 20,000 tool results with their caller in linear time (reads of the history counted)', async () => {
    const history = [msg('user', 'q'), call('c'), ...Array.from({ length: 20_000 }, () => result('c'))];
    let reads = 0;
    const counted = new Proxy(history, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads += 1;
        return Reflect.get(target, key, receiver);
      },
    });
    const filtered = await filterHistory(counted, {
      lastUserSimilarity: () => 0,
      keepRecent: 4,
      minSimilarity: 0.2,
      tokenBudget: 8_000,
      countTokens: () => 1,
    });
    expect(filtered.kept).toBe(history.length);
    // Walking back from each tool result to its caller read the history ~200 million times; now a few passes.
    expect(reads).toBeLessThan(20 * history.length);
  });

  it('keeps a caller exactly when all of its results are kept, and a result only with its caller (property)', async () => {
    const turn = fc.oneof(
      fc.constant<ChatMessage[]>([msg('user', 'u')]),
      fc.constant<ChatMessage[]>([msg('assistant', 'a')]),
      fc.nat(3).map((n) => [call('x'), ...Array.from({ length: n + 1 }, () => result('x'))]),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(turn, { maxLength: 12 }).map((turns) => turns.flat()),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 60, maxLength: 60 }),
        fc.nat(4),
        async (messages, similarity, keepRecent) => {
          const { messages: kept } = await filterHistory(messages, {
            lastUserSimilarity: (index) => similarity[index] ?? 0,
            keepRecent,
            minSimilarity: 0.5,
            tokenBudget: 10_000,
            countTokens: () => 1,
          });
          const keptSet = new Set(kept);
          messages.forEach((message, index) => {
            if (!message.tool_calls) return;
            let end = index + 1;
            while (messages[end]?.role === 'tool') end += 1;
            const results = messages.slice(index + 1, end);
            if (keptSet.has(message)) for (const r of results) expect(keptSet.has(r)).toBe(true);
            else for (const r of results) expect(keptSet.has(r)).toBe(false);
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('filterHistoryByRelevance and the embedding cache', () => {
  function countingEmbedder(): Embedder & { calls: string[] } {
    const calls: string[] = [];
    return {
      id: 'test',
      dimension: 2,
      calls,
      async embed(texts) {
        calls.push(...texts);
        return texts.map((text) => (text.includes('cats') ? new Float32Array([1, 0]) : new Float32Array([0, 1])));
      },
    };
  }

  it('keeps older messages about the same topic as the last question', async () => {
    const embedder = countingEmbedder();
    const messages = [msg('user', 'I like cats'), msg('user', 'weather today?'), msg('user', 'more about cats')];
    const result = await filterHistoryByRelevance(messages, {
      embedder,
      keepRecent: 0,
      minSimilarity: 0.5,
      tokenBudget: 1000,
    });
    expect(result.messages.map((message) => message.content)).toEqual(['I like cats', 'more about cats']);
  });

  it('embeds a repeated message once', async () => {
    const inner = countingEmbedder();
    const cached = createCachedEmbedder({ embedder: inner, maxEntries: 10 });
    await cached.embed(['a', 'b'], 'document');
    const again = await cached.embed(['b', 'c'], 'document');
    expect(inner.calls).toEqual(['a', 'b', 'c']);
    expect(again).toHaveLength(2);
  });
});
