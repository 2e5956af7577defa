import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  chunkTerms,
  lexicalTermIdsOf,
  lexicalTermsOf,
  NO_NEIGHBOURS,
  ownTermsFirst,
  querySpeakerIds,
  queryTermFrequencies,
  SPOKEN_TERM,
  speakerTermIdsOf,
  termId,
  textWords,
} from './index.ts';

const frequencies = (sparse: { indices: number[]; values: number[] }) =>
  Object.fromEntries(sparse.indices.map((index, i) => [index, sparse.values[i]]));

describe('lexical terms', () => {
  it('joins the forms of a word and drops function words', () => {
    expect(lexicalTermsOf('She visited the museums; he visits a museum.')).toEqual([
      'visit',
      'museum',
      'visit',
      'museum',
    ]);
    expect(lexicalTermsOf('Caroline went to the children’s concert')).toEqual(
      lexicalTermsOf('Caroline go child concert'),
    );
  });

  it('keeps digits, ids and other scripts as they are', () => {
    expect(lexicalTermsOf('Room 42b, 東京')).toEqual(['room', '42b', '東', '京']);
  });

  it('gives a query of only function words no terms', () => {
    expect(queryTermFrequencies('What was it?')).toEqual({ indices: [], values: [] });
  });

  it('counts a query’s repeated terms, with ascending unique ids', () => {
    const query = queryTermFrequencies('paint painting painted sunset');
    expect(frequencies(query)).toEqual({ [termId('paint')]: 3, [termId('sunset')]: 1 });
    expect(query.indices).toEqual([...query.indices].sort((a, b) => a - b));
  });

  it('gives each text its own terms, and its neighbours’ within the span as weighted context', () => {
    const window = { span: 1, before: 0.3, after: 0.3 };
    const [first, second, , last] = chunkTerms(['apple', 'banana apple', 'cherry', 'damson'], window);
    expect(frequencies(first?.terms as never)).toEqual({ [termId('appl')]: 1 });
    expect(frequencies(first?.contextTerms as never)).toEqual({ [termId('banana')]: 0.3, [termId('appl')]: 0.3 });
    expect(frequencies(second?.terms as never)).toEqual({ [termId('banana')]: 1, [termId('appl')]: 1 });
    expect(frequencies(second?.contextTerms as never)).toEqual({ [termId('appl')]: 0.3, [termId('cherri')]: 0.3 });
    expect(frequencies(last?.contextTerms as never)).toEqual({ [termId('cherri')]: 0.3 });
  });

  it('lends a text more of the words before it than of those after it (a reply is about what it answers)', () => {
    const [question, reply, next] = chunkTerms(['concert singer', 'Patterson', 'lovely'], {
      span: 1,
      before: 0.45,
      after: 0.15,
    });
    const [lovely] = lexicalTermsOf('lovely') as [string];
    expect(frequencies(reply?.contextTerms as never)).toEqual({
      [termId('concert')]: 0.45,
      [termId('singer')]: 0.45,
      [termId(lovely)]: 0.15,
    });
    expect(frequencies(question?.contextTerms as never)).toEqual({ [termId('patterson')]: 0.15 });
    expect(frequencies(next?.contextTerms as never)).toEqual({ [termId('patterson')]: 0.45 });
  });

  it('gives a turn opened by a speaker label its speaker’s markers, its own only, apart from the words', () => {
    const [caroline] = querySpeakerIds('Caroline');
    const [dr, smith] = [querySpeakerIds('Dr')[0], querySpeakerIds('Smith')[0]];
    expect(speakerTermIdsOf('Caroline: I painted a mural.')).toEqual([SPOKEN_TERM, caroline]);
    expect(speakerTermIdsOf('  Dr Smith: take two.')).toEqual([SPOKEN_TERM, dr, smith]);
    // Not labels: a time, a URL, a sentence before its colon, a lower-case word.
    for (const text of ['10:30 meeting', 'Https://example.com', 'We met at noon: it rained', 'note: milk', 'Hi'])
      expect(speakerTermIdsOf(text)).toEqual([]);
    expect(caroline).not.toBe(termId('carolin')); // never the word's own term
    const [first, second] = chunkTerms(['Caroline: painted a mural', 'Melanie: lovely'], {
      span: 1,
      before: 0.5,
      after: 0.5,
    });
    expect(frequencies(first?.terms as never)).toEqual({
      [termId('carolin')]: 1,
      [caroline as number]: 1,
      [SPOKEN_TERM]: 1,
      [termId('paint')]: 1,
      [termId('mural')]: 1,
    });
    // The neighbour's words are lent, not its speaker.
    expect(frequencies(second?.contextTerms as never)).not.toHaveProperty(String(caroline));
    expect(frequencies(second?.contextTerms as never)).not.toHaveProperty(String(SPOKEN_TERM));
    expect(frequencies(second?.contextTerms as never)).toHaveProperty(String(termId('carolin')), 0.5);
  });

  it('with weights or span 0 a text has no context', () => {
    for (const window of [NO_NEIGHBOURS, { span: 2, before: 0, after: 0 }, { span: 0, before: 0.3, after: 0.3 }]) {
      const [only] = chunkTerms(['apple', 'banana'], window);
      expect(only).toEqual({ terms: { indices: [termId('appl')], values: [1] } });
    }
  });

  it('gives a word the same term and id every time it is met (memoised), and ids in text order', () => {
    const text = 'Visited museums, visiting MUSEUM; went to children’s concerts 42b 東京';
    const first = lexicalTermIdsOf(text);
    expect(first).toEqual(lexicalTermsOf(text).map(termId));
    expect(lexicalTermIdsOf(text)).toEqual(first);
    expect(lexicalTermsOf(text)).toEqual([
      'visit',
      'museum',
      'visit',
      'museum',
      'go',
      'child',
      'concert',
      '42b',
      '東',
      '京',
    ]);
    // More distinct words than the memo keeps: each still gets its own term.
    const many = Array.from({ length: 60_000 }, (_, i) => `w${i.toString(36)}x`).join(' ');
    expect(new Set(lexicalTermIdsOf(many)).size).toBe(60_000);
    expect(lexicalTermIdsOf(text)).toEqual(first);
  });

  it('gives stored chunks exactly the term frequencies of earlier versions (sums in the same order)', () => {
    const words = 'apple banana cherry visiting visited museums concert 42 singer lovely the of report'.split(' ');
    const texts = Array.from({ length: 40 }, (_, i) =>
      Array.from({ length: 30 + (i % 7) }, (_, j) => words[(i * 31 + j * 17 + ((i * j) % 5)) % words.length]).join(' '),
    );
    const digest = createHash('sha256')
      .update(JSON.stringify(chunkTerms(texts)))
      .digest('hex');
    // Digest of what the version before the memo produced: a change re-scores every stored chunk.
    expect(digest).toBe('f8d52b4108a73663fa0d41192dd40fd6ba20c9f2f74c92d887ec0a33c68ee270');
    // From the words an add has already read (textWords, shared with the embedder): the same terms.
    expect(chunkTerms(texts, undefined, texts.map(textWords))).toEqual(chunkTerms(texts));
  });

  it('gives an add its own terms first and its neighbours’ later, in any order, as chunkTerms gives them', () => {
    const texts = [
      'Caroline: I went to the beach with the kids.',
      'Mel: Which beach? The one near the museum?',
      'Caroline: Brighton, near the pier. The kids loved the pier.',
      'A note without a speaker about the museum and the concert.',
      'Mel: Lovely. We saw a concert there last year.',
    ];
    const whole = chunkTerms(texts);
    const { own, neighbours } = ownTermsFirst(texts);
    expect(own).toEqual(whole.map((terms) => terms.terms));
    // Asked for from the last text to the first, a size between each: nothing one leaves changes the next.
    for (let position = texts.length - 1; position >= 0; position--) {
      expect(neighbours.contextSizeAt(position)).toBe(whole[position]?.contextTerms?.indices.length);
      expect(neighbours.contextTermsAt(position)).toEqual(whole[position]?.contextTerms);
    }
    const alone = ownTermsFirst(texts.slice(0, 1));
    expect(alone.neighbours.contextTermsAt(0)).toBeUndefined();
    expect(alone.neighbours.contextSizeAt(0)).toBe(-1);
    expect(ownTermsFirst(texts, NO_NEIGHBOURS).neighbours.contextSizeAt(2)).toBe(-1);
  });
});
