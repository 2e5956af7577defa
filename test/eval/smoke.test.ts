import { LEXICAL_RELEVANCE_FLOOR } from '@memgate/adapters';
import { signLocalToken } from '@memgate/local/token';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConversations } from '../../bench/eval/dataset.ts';
import { evaluateHistory } from '../../bench/eval/history.ts';
import { type EvalReport, renderEvalMarkdown } from '../../bench/eval/report.ts';
import { evaluateRetrieval } from '../../bench/eval/retrieval.ts';
import { takeLastMessages } from '../../bench/eval/server.ts';
import type { EvalTarget } from '../../bench/eval/target.ts';
import { startTestLocalServer } from '../support/local-server.ts';
import { startUpstreamStub, type UpstreamStub } from '../support/upstream-stub.ts';
import { SYNTHETIC_SAMPLES } from './synthetic.ts';

// The evaluation's own code (npm run eval) on a conversation whose answers are known, against the local server.
const SECRET = 'memgate-eval-smoke-secret-0123456789';
const conversations = parseConversations(SYNTHETIC_SAMPLES);
let stub: UpstreamStub;
let stop: () => Promise<void>;
let target: EvalTarget;

beforeAll(async () => {
  stub = await startUpstreamStub({ behavior: { reply: 'ok' } });
  const server = await startTestLocalServer('eval', { AUTH_JWT_SECRET: SECRET, PROXY_ALLOW_PRIVATE_TARGETS: 'true' });
  stop = server.stop;
  target = {
    url: server.url,
    upstreamUrl: stub.url,
    token: (user) => signLocalToken(SECRET, { user }),
    takeForwarded: () => takeLastMessages(stub.requests),
  };
});

afterAll(async () => {
  await stop?.();
  await stub?.close();
});

const reportBase: EvalReport = {
  mode: 'quick',
  startedAt: new Date(0).toISOString(),
  seconds: 1,
  machine: {
    cpu: 'test',
    cores: 1,
    memoryGiB: 1,
    os: 'test',
    node: 'v0',
    java: '',
    loadAverage: 0,
    commit: 'abc',
    dirty: false,
  },
  settings: {},
  data: { file: 'synthetic', conversations: ['synthetic-1'], questions: 3, historyQuestions: 3 },
  ideas: [],
};

describe('the LoCoMo evaluation on a synthetic conversation', () => {
  it('reads turns in session order with photo captions, and scores only questions with evidence in categories 1-4', () => {
    const [conversation] = conversations;
    expect(conversation?.turns.slice(0, 3).map((turn) => turn.id)).toEqual(['D1:1', 'D1:2', 'D1:3']);
    expect(conversation?.turns[2]?.content).toBe(
      'Nadia: Meet the puppy we adopted! [shares a photo: a greyhound asleep on a sofa]',
    );
    expect(conversation?.turns[2]?.speakerA).toBe(true);
    expect(conversation?.questions.map((question) => question.evidence)).toEqual([
      ['D1:2'],
      ['D2:1', 'D2:2'],
      ['D1:3'],
    ]);
  });

  it('computes recall@1/5/10 per category for memgate and both peers', async () => {
    const result = await evaluateRetrieval(target, conversations);
    for (const table of [result.memgate, result.bm25, result.stemmedBm25]) {
      // Each question's evidence is the only text sharing its words: found first; the two-turn question can
      // only have one of its turns first. The temporal one is answered by a photo's caption, part of its turn.
      expect(table.byCategory['single-hop']).toEqual({ questions: 1, r1: 1, r5: 1, r10: 1 });
      expect(table.byCategory['multi-hop']).toEqual({ questions: 1, r1: 0.5, r5: 1, r10: 1 });
      expect(table.byCategory.temporal).toEqual({ questions: 1, r1: 1, r5: 1, r10: 1 });
      expect(table.overall).toEqual({ questions: 3, r1: 2.5 / 3, r5: 1, r10: 1 });
    }
  });

  it('reports recall on each half of the conversations, each half with its own questions', async () => {
    const [conversation] = conversations as [(typeof conversations)[number]];
    const again = { ...conversation, id: 'synthetic-2' };
    const result = await evaluateRetrieval(target, [conversation, again]);
    expect(result.halves?.map((half) => half.conversations)).toEqual([['synthetic-1'], ['synthetic-2']]);
    for (const half of result.halves ?? []) {
      expect(half.memgate).toEqual({ questions: 3, r1: 2.5 / 3, r5: 1, r10: 1 });
      expect(half.stemmedBm25).toEqual(half.memgate);
    }
    const markdown = renderEvalMarkdown({ ...reportBase, retrieval: result });
    expect(markdown).toContain('| synthetic-2 | 3 | 0.833 | 1.000 | 1.000 | 0.833 | 1.000 | 1.000 |');
    expect(result.byConversation?.map((row) => [row.conversations, row.memgate.questions])).toEqual([
      [['synthetic-1'], 3],
      [['synthetic-2'], 3],
    ]);
  });

  it('measures what each context floor injects, for questions of the memory and of the next one', async () => {
    const [conversation] = conversations as [(typeof conversations)[number]];
    const result = await evaluateRetrieval(target, [conversation, { ...conversation, id: 'synthetic-3' }]);
    const floor = result.floor;
    expect(floor?.relevantQuestions).toBe(6);
    expect(floor?.unrelatedQuestions).toBe(6);
    // With no floor to speak of, the first 5 hold every evidence turn (recall@5 is 1).
    expect(floor?.rows[0]).toMatchObject({ floor: 0.03, evidenceInjected: 1, relevantWithContext: 1 });
    // Fewer records pass a higher floor.
    const injected = floor?.rows.map((row) => row.evidenceInjected) ?? [];
    expect(injected).toEqual([...injected].sort((a, b) => b - a));
    const markdown = renderEvalMarkdown({ ...reportBase, retrieval: result });
    expect(markdown).toContain('## Context floor');
    expect(markdown).toContain(`| **${LEXICAL_RELEVANCE_FLOOR} (default)** | `);
  });

  it("measures the history filter's evidence kept and size against recency and stemmed BM25 at the same size", async () => {
    const result = await evaluateHistory(target, conversations, { perConversation: 3 });
    expect(result.questions).toBe(3);
    // Every evidence turn is old (before the 4 recent turns the filter always keeps) and shares the question's words.
    expect(result.memgate.evidenceKept).toBe(1);
    expect(result.stemmedBm25.evidenceKept).toBe(1);
    // The most recent turns at the same size are filler.
    expect(result.recency.evidenceKept).toBe(0);
    expect(result.memgate.size).toBeGreaterThan(0);
    expect(result.memgate.size).toBeLessThan(1);
    expect(result.recency.size).toBeLessThanOrEqual(result.memgate.size);
    const markdown = renderEvalMarkdown({ ...reportBase, history: result });
    expect(markdown).toContain('| memgate history filter | 1.000 |');
  });
});
