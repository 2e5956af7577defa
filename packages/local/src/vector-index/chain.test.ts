import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  chunkTerms,
  DEFAULT_NEIGHBOUR_WINDOW,
  neighbourOffsets,
  querySpeakerIds,
  queryTermFrequencies,
  speakerTermIdsOf,
  type VectorItem,
  type VectorMatch,
} from '@memgate/core';
import { afterEach, describe, expect, it } from 'vitest';
import { metadataFor } from '../../../../test/conformance/vector-index.ts';
import type { LocalVectorIndex } from './index.ts';
import { closeOpenedIndexes, freshDir, openIndex } from './test-indexes.ts';

afterEach(closeOpenedIndexes);

const NAMESPACE = 'user:u1';
const DIMENSION = 8;

/** A seeded generator, so every run replays the same corpus and queries. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

const random = generator(11);
const vocabulary = Array.from({ length: 90 }, (_, i) => `w${i.toString(36)}q`);
const word = () => vocabulary[Math.floor(vocabulary.length * random() ** 3)] as string;
const speakers = ['Ann', 'Bob', 'Cyd Lee'];
const text = () => {
  const words = Array.from({ length: 2 + Math.floor(random() * 25) }, word).join(' ');
  return random() < 0.5 ? `${speakers[Math.floor(random() * 3)]}: ${words}` : words;
};
const vector = () => Float32Array.from({ length: DIMENSION }, () => random() - 0.4);

/** One add's items (chunkTerms' default window, 0.45 before and 0.15 after), with their chains or without. */
function add(ids: readonly string[], withChains: boolean, documents = 3): [VectorItem[], VectorItem[]] {
  const texts = ids.map(text);
  const terms = chunkTerms(texts);
  const offsets = neighbourOffsets(texts.length, DEFAULT_NEIGHBOUR_WINDOW);
  const plain = ids.map((id, i) => ({
    id,
    values: vector(),
    metadata: metadataFor({ documentId: `doc-${i % documents}` }),
    ...terms[i],
  }));
  const chained = plain.map((item, i) => {
    const { offsets: at, weights } = offsets[i] as { offsets: number[]; weights: number[] };
    const chain = {
      neighbours: at.map((offset) => ids[i + offset] as string),
      weights,
      unlent: speakerTermIdsOf(texts[i] as string),
    };
    return withChains ? { ...item, chain } : item;
  });
  return [chained, plain];
}

/** Every live vector ranked (topK beyond the corpus, so no tie sits at a cut), equal scores by id. */
async function ranking(index: LocalVectorIndex, question: string, filter?: { documentId: string }) {
  const found = await index.query(NAMESPACE, {
    vector: Float32Array.from({ length: DIMENSION }, (_, i) => (i % 3) - 1),
    terms: queryTermFrequencies(question),
    speakers: { terms: querySpeakerIds(question), factor: 0.5 },
    lexicalWeight: 0.9,
    topK: 10_000,
    ...(filter ? { filter } : {}),
  });
  return found
    .map(({ id, score }: VectorMatch) => ({ id, score }))
    .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
}

const lexicalBytes = (dir: string) => {
  const [namespace] = readdirSync(dir);
  const folder = join(dir, namespace as string);
  const file = readdirSync(folder).find((name) => name.endsWith('.lexical'));
  return statSync(join(folder, file as string)).size;
};

describe('local vector index: neighbours lent at query time', () => {
  it('scores bit for bit as with stored neighbour terms, through chain-breaking deletes, replacements and restarts', async () => {
    const dirs = [freshDir('memgate-chained-'), freshDir('memgate-stored-')] as const;
    let [chained, stored] = await Promise.all(dirs.map((dir) => openIndex(dir, 16 * 1024)));
    const both = async (run: (index: LocalVectorIndex, which: 0 | 1) => Promise<void>) => {
      await run(chained as LocalVectorIndex, 0);
      await run(stored as LocalVectorIndex, 1);
    };
    const compare = async () => {
      for (const question of ['w1q w2q', 'w3q Ann', 'w0q w5q w9q Cyd', 'w4q']) {
        for (const filter of [undefined, { documentId: 'doc-1' }]) {
          const expected = await ranking(stored as LocalVectorIndex, question, filter);
          expect(expected.length).toBeGreaterThan(0);
          expect(await ranking(chained as LocalVectorIndex, question, filter)).toEqual(expected);
        }
      }
    };
    let next = 0;
    const fresh = (count: number) => Array.from({ length: count }, () => `c-${next++}`);
    for (let round = 0; round < 6; round++) {
      const batch = add(fresh(20 + round * 3), true);
      await both((index, which) => index.upsert(NAMESPACE, batch[which]));
      await compare();
      // One chunk from the middle of an add, and a document's chunks: their neighbours keep what they lent.
      const gone = [`c-${Math.floor(random() * next)}`, `c-${Math.floor(random() * next)}`];
      await both((index) => index.delete(NAMESPACE, gone));
      await compare();
      // Some chunks written again alone or in a new add with fresh ones: new texts, their old neighbours unchanged.
      const again = [`c-${Math.floor(random() * next)}`, ...fresh(3), `c-${Math.floor(random() * next)}`];
      const rewrite = add([...new Set(again)], true);
      await both((index, which) => index.upsert(NAMESPACE, rewrite[which]));
      await compare();
      // A crash (the journal replayed over the last snapshot), then a clean restart (a snapshot of it all).
      if (round === 2 || round === 4) {
        if (round === 4) await both((index) => index.close());
        [chained, stored] = await Promise.all(dirs.map((dir) => openIndex(dir, 16 * 1024)));
        await compare();
      }
    }
    await both((index) => index.close());
    // The neighbours' terms are most of what the stored index holds.
    expect(lexicalBytes(dirs[0])).toBeLessThan(0.7 * lexicalBytes(dirs[1]));
  });

  it('stores the context of a chained chunk whose neighbours do not lend it exactly, and scores it as stored', async () => {
    const dirs = [freshDir('memgate-unlent-'), freshDir('memgate-unlent-stored-')] as const;
    const [chained, stored] = (await Promise.all(dirs.map((dir) => openIndex(dir, 16 * 1024)))) as [
      LocalVectorIndex,
      LocalVectorIndex,
    ];
    const ids = Array.from({ length: 24 }, (_, i) => `u-${i}`);
    const [withChains, plain] = add(ids, true);
    // A writer whose contextTerms are not what the chain lends (a weight off by a rounding): such chunks borrow
    // nothing and keep their context in postings of their own.
    const offBy = (item: VectorItem): VectorItem => {
      const context = item.contextTerms;
      if (!context || context.values.length === 0) return item;
      const values = context.values.map((value, i) => (i === 0 ? value * 1.5 : value));
      return { ...item, contextTerms: { indices: context.indices, values } };
    };
    await chained.upsert(
      NAMESPACE,
      withChains.map((item, i) => (i % 3 === 0 ? offBy(item) : item)),
    );
    await stored.upsert(
      NAMESPACE,
      plain.map((item, i) => (i % 3 === 0 ? offBy(item) : item)),
    );
    for (const question of ['w1q w2q', 'w3q Ann', 'w0q w5q w9q Cyd', 'w4q', 'w6q w7q w8q']) {
      const expected = await ranking(stored, question);
      expect(expected.length).toBeGreaterThan(0);
      expect(await ranking(chained, question)).toEqual(expected);
    }
  });
});
