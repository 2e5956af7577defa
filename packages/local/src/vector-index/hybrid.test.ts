import {
  chunkTerms,
  neighbourOffsets,
  querySpeakerIds,
  queryTermFrequencies,
  speakerTermIdsOf,
  type VectorItem,
  type VectorMetadata,
} from '@memgate/core';
import { afterEach, describe, expect, it } from 'vitest';
import { exhaustive, generator, type Live } from './hybrid-oracle.ts';
import { closeOpenedIndexes, freshDir, openIndex } from './test-indexes.ts';

const DIMENSION = 8;
const NAMESPACE = 'user:u1';

afterEach(closeOpenedIndexes);

describe('local vector index: hybrid search', () => {
  it('returns exactly the top of an exhaustive scoring, through upserts, replacements, deletes and a restart', async () => {
    const random = generator(7);
    const vocabulary = Array.from({ length: 120 }, (_, i) => `word${i.toString(36)}z`);
    // Skewed word choice: a few terms in most texts (long postings), many rare ones.
    const word = () => vocabulary[Math.floor(vocabulary.length * random() ** 3)] as string;
    const words = () => Array.from({ length: 2 + Math.floor(random() * 30) }, word).join(' ');
    // Half the texts are turns of a transcript, opened by their speaker's label.
    const speakers = ['Ann', 'Bob', 'Cyd Lee'];
    const speaker = () => speakers[Math.floor(random() * speakers.length)] as string;
    const text = () => (random() < 0.5 ? `${speaker()}: ${words()}` : words());
    const vector = () => Float32Array.from({ length: DIMENSION }, () => random() - 0.4);
    const dir = freshDir('memgate-hybrid-');
    let index = await openIndex(dir, 64 * 1024);
    const live = new Map<string, Live>();
    const ids: string[] = [];
    let checked = 0;
    for (let step = 0; step < 60; step++) {
      const texts = Array.from({ length: 5 + Math.floor(random() * 40) }, text);
      const window = { span: 2, before: 0.25, after: 0.25 };
      const terms = chunkTerms(texts, window);
      const items: VectorItem[] = texts.map((_, i) => {
        // Some items replace an existing id: its slot is reused and its old postings must die.
        const replaced = random() < 0.25 && ids.length > 0;
        const id = replaced ? (ids[Math.floor(random() * ids.length)] as string) : `chunk-${step}-${i}`;
        if (!replaced) ids.push(id);
        const metadata: VectorMetadata = {
          documentId: `doc-${step % 7}`,
          userId: 'u1',
          scopes: [random() < 0.2 ? 'external' : 'internal'],
          source: 's',
          fileName: 'f.txt',
          docType: 'txt',
          contextType: 'resource',
          tags: [],
        };
        return { id, values: vector(), metadata, ...terms[i] };
      });
      // Most batches carry their chains: the index then lends the neighbours' terms at query time, and must score
      // as if it had stored them, also once a neighbour is deleted or replaced alone (slot-chains.ts).
      if (step % 4 !== 3) {
        neighbourOffsets(texts.length, window).forEach(({ offsets, weights }, i) => {
          const item = items[i] as VectorItem;
          const neighbours = offsets.map((offset) => (items[i + offset] as VectorItem).id);
          item.chain = { neighbours, weights, unlent: speakerTermIdsOf(texts[i] as string) };
        });
      }
      await index.upsert(NAMESPACE, items);
      for (const item of items) live.set(item.id, item);
      const gone = Array.from({ length: Math.floor(random() * 12) }, () => ids[Math.floor(random() * ids.length)]);
      await index.delete(NAMESPACE, gone as string[]);
      for (const id of gone) live.delete(id as string);
      if (step === 30) {
        await index.close();
        index = await openIndex(dir, 64 * 1024);
      }
      for (const filter of [undefined, { scopes: 'internal' }, { scopes: 'external' }, { documentId: 'doc-3' }]) {
        const asked = Array.from({ length: 1 + Math.floor(random() * 5) }, word).join(' ');
        // Half the queries name a speaker (who may have no turn left), so some matches keep half their score.
        const queryText = random() < 0.5 ? `${asked} ${speaker()}` : asked;
        const query = {
          vector: vector(),
          terms: queryTermFrequencies(queryText),
          speakers: { terms: querySpeakerIds(queryText), factor: 0.5 },
          lexicalWeight: [0.7, 0.3, 1][step % 3] as number,
          topK: [1, 5, 20][Math.floor(random() * 3)] as number,
          ...(filter ? { filter } : {}),
        };
        const { top, all } = exhaustive(live, query);
        const found = await index.query(NAMESPACE, query);
        // Same length, and at each rank the score the exhaustive ranking has there: the same top, ties in any order.
        expect(found).toHaveLength(top.length);
        expect(new Set(found.map((match) => match.id)).size).toBe(found.length);
        found.forEach((match, i) => {
          expect(match.score).toBeCloseTo(top[i]?.score as number, 6);
          expect(all.get(match.id)).toBeCloseTo(top[i]?.score as number, 6);
        });
        checked++;
      }
    }
    expect(checked).toBe(240);
  }, 60_000); // 240 exhaustive scorings: ~6 s alone, over 20 on a loaded machine

  it('ranks the turns of the speaker a question names above the same words from someone else', async () => {
    const turns = [
      'Melanie: Caroline, I paint! I painted a sunrise, painting relaxes me, I paint daily.',
      'Caroline: Lovely! I painted a mural at the youth centre with friends from my support group last weekend.',
      'Melanie: Thanks! Anything new with the kids?',
      'Caroline: We went to a concert downtown.',
      'How to paint a wall: paint, primer and painting tape.',
    ];
    const terms = chunkTerms(turns);
    const index = await openIndex(freshDir('memgate-speakers-'), 64 * 1024);
    const metadata = { documentId: 'd', userId: 'u1', scopes: ['internal'], tags: [] } as unknown as VectorMetadata;
    await index.upsert(
      NAMESPACE,
      turns.map((_, i) => ({
        id: `turn-${i}`,
        values: Float32Array.from({ length: DIMENSION }, () => 1),
        metadata,
        ...terms[i],
      })),
    );
    const ask = (question: string, factor: number) =>
      index.query(NAMESPACE, {
        vector: Float32Array.from({ length: DIMENSION }, () => 1),
        topK: 5,
        terms: queryTermFrequencies(question),
        lexicalWeight: 0.8,
        speakers: { terms: querySpeakerIds(question), factor },
      });
    const plain = await ask('What did Caroline paint?', 1);
    // Melanie names Caroline and says "paint" three times: without attribution her turn comes first.
    const order = (matches: typeof plain) => matches.map((match) => match.id).filter((id) => id !== 'turn-4');
    expect(order(plain).slice(0, 2)).toEqual(['turn-0', 'turn-1']);
    const attributed = await ask('What did Caroline paint?', 0.6);
    expect(order(attributed)[0]).toBe('turn-1');
    const score = (matches: typeof plain, id: string) => matches.find((match) => match.id === id)?.score as number;
    expect(score(attributed, 'turn-1')).toBeCloseTo(score(plain, 'turn-1'), 9);
    expect(score(attributed, 'turn-0')).toBeCloseTo(0.6 * score(plain, 'turn-0'), 9);
    // A text no speaker label opens is nobody's turn: it keeps its score.
    expect(score(attributed, 'turn-4')).toBeCloseTo(score(plain, 'turn-4'), 9);
    // Nobody the query names speaks here: no score changes.
    expect(await ask('What did Anthony paint?', 0.6)).toEqual(await ask('What did Anthony paint?', 1));
  });
});
