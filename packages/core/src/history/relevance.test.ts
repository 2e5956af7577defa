import { describe, expect, it } from 'vitest';
import { chunkTerms } from '../context/lexical/index.ts';
import type { Embedder } from '../context/ports.ts';
import type { ChatMessage } from '../model/index.ts';
import { filterHistoryByRelevance, hybridRelevance } from './index.ts';
import { slicedChunkTerms } from './relevance.ts';

const msg = (role: ChatMessage['role'], content: string): ChatMessage => ({ role, content });

/** A stand-in dense embedder: words of four letters or more, hashed into 1024 buckets, L2-normalised. */
const wordEmbedder: Embedder = {
  id: 'words',
  dimension: 1024,
  async embed(texts) {
    return texts.map((text) => {
      const vector = new Float32Array(1024);
      for (const word of text.toLowerCase().match(/[a-z]{4,}/g) ?? []) {
        let hash = 0;
        for (const char of word) hash = (hash * 31 + char.charCodeAt(0)) % 1024;
        vector[hash] = (vector[hash] as number) + 1;
      }
      const norm = Math.hypot(...vector) || 1;
      return vector.map((value) => value / norm);
    });
  },
};

const chatter = [
  'The weather forecast says rain until Friday.',
  'We should grab lunch somewhere near the station.',
  'Traffic on the ring road was terrible this morning.',
  'My neighbour finally fixed the noisy fence.',
  'Did you watch the football match yesterday?',
  'Yes, the second half was exciting.',
  'I need new running shoes before the spring.',
  'The bakery downtown sells great croissants.',
  'My phone battery dies far too quickly lately.',
  'Try turning off the background refresh.',
];
const options = { embedder: wordEmbedder, keepRecent: 2, minSimilarity: 0.065, tokenBudget: 8000 };

describe('history filtering with hybrid relevance', () => {
  it('keeps an old reply that shares no word with the question when the turn it answers does', async () => {
    const messages = [
      msg('user', 'Where did you park the car yesterday?'),
      msg('assistant', 'Right by the blue pillar on level three.'),
      ...chatter.map((text, index) => msg(index % 2 ? 'assistant' : 'user', text)),
      msg('user', 'Remind me where the car got parked?'),
    ];
    const result = await filterHistoryByRelevance(messages, options);
    const forwarded = result.messages.map((message) => message.content);
    expect(forwarded.slice(0, 2)).toEqual([
      'Where did you park the car yesterday?',
      'Right by the blue pillar on level three.',
    ]);
    // Chatter far from the exchange (more than 4 turns away) and unrelated to the question is not forwarded.
    for (const text of chatter.slice(4, 8)) expect(forwarded).not.toContain(text);
    expect(forwarded.slice(-3)).toEqual([...chatter.slice(-2), 'Remind me where the car got parked?']);
  });

  it('prefers a word that is rare in the conversation over one it repeats when the budget is tight', async () => {
    const project = Array.from({ length: 8 }, (_, index) =>
      msg(
        index % 2 ? 'assistant' : 'user',
        `Notes on the project, part ${index + 1}: the project plan and the project team.`,
      ),
    );
    const messages = [
      msg('user', 'The Zanzibar trip needs a project budget.'),
      ...chatter.slice(0, 5).map((text) => msg('assistant', text)),
      ...project,
      msg('assistant', 'Fine.'),
      msg('user', 'Okay.'),
      msg('user', 'What did we decide about the project in Zanzibar?'),
    ];
    // Room for the required messages and about one more.
    const result = await filterHistoryByRelevance(messages, { ...options, tokenBudget: 40 });
    expect(result.messages.map((message) => message.content)).toEqual([
      'The Zanzibar trip needs a project budget.',
      'Fine.',
      'Okay.',
      'What did we decide about the project in Zanzibar?',
    ]);
  });
});

describe('hybridRelevance', () => {
  const texts = ['the car is on level three', 'we had lunch at noon near the old harbour', 'lunch was late'];

  it('fuses the dense similarity with the lexical match over the texts themselves, in [0, 1]', async () => {
    const scores = await hybridRelevance(texts, 'where was lunch?', [0.2, 0.1, 0.1], { lexicalWeight: 0.7 });
    // The same word in a shorter text counts more (BM25's length normalisation).
    expect(scores[2]).toBeGreaterThan(scores[1] as number);
    expect(scores[1]).toBeGreaterThan(0.3 * 0.1);
    // No word of its own matches: its dense share, or half of its neighbour's score (a reply), whichever is higher.
    expect(scores[0]).toBeCloseTo(Math.max(0.3 * 0.2, (scores[1] as number) / 2));
    for (const score of scores) expect(score).toBeLessThanOrEqual(1);
  });

  it("ranks a message holding the question's words itself above one borrowing them from its neighbours", async () => {
    const small = ['the weather is mild today', 'lunch near the station', 'traffic was slow', 'my fence is fixed'];
    const repairs = ['the boat repair went well', 'boat repair again', 'the boat needed repair', 'repair the boat'];
    // The borrower holds only "invoice" and sits among four messages on each side about the boat's repair.
    const history = [...repairs, 'the invoice came', ...repairs, ...small, ...small, 'boat repair invoice', ...small];
    const borrower = 4;
    const holder = history.indexOf('boat repair invoice');
    const scores = await hybridRelevance(
      history,
      'boat repair invoice?',
      history.map(() => 0),
      { lexicalWeight: 1 },
    );
    // Without the coordination of its own terms, the borrower scored 0.60 and the holder 0.54.
    expect(scores[holder]).toBeGreaterThan(scores[borrower] as number);
    expect(scores[borrower]).toBeGreaterThan(0);
  });

  it('falls back to the dense similarity for a question with no word the texts hold', async () => {
    // Each text still scores at least half of the one before or after it.
    const dense = [0.4, 0.1, 0];
    expect(await hybridRelevance(texts, 'and what about it?', dense, { lexicalWeight: 0.7 })).toEqual([0.4, 0.2, 0.05]);
    expect(await hybridRelevance(texts, 'where was lunch?', dense, { lexicalWeight: 0 })).toEqual([0.4, 0.2, 0.05]);
  });
});

describe('slicedChunkTerms', () => {
  it('reads the terms a batch at a time, giving way when the slice is used up, with the same windows as one pass', async () => {
    const texts = Array.from(
      { length: 100 },
      (_, index) => `message ${index} about topic${index % 7} and word${index}`,
    );
    let gaveWay = 0;
    const slice = {
      due: () => true,
      giveWay: async () => {
        gaveWay += 1;
      },
    };
    const window = { span: 4, before: 0.2, after: 0.2 };
    expect(await slicedChunkTerms(texts, window, slice)).toEqual(chunkTerms(texts, window));
    expect(gaveWay).toBeGreaterThan(1);
  });
});
