import {
  inverseDocumentFrequency,
  ownTermsFactor,
  SPOKEN_TERM,
  type SparseValues,
  saturatedFrequency,
  type VectorFilter,
  type VectorMetadata,
} from '@memgate/core';
import { HOLDING_UNITS, holdingUnits } from './term-postings.ts';

// For the index's own tests: the port's hybrid score computed exhaustively (hybrid.test.ts, no-graph.test.ts).

export interface Live {
  values: Float32Array;
  metadata: VectorMetadata;
  terms?: SparseValues | undefined;
  contextTerms?: SparseValues | undefined;
}

/** A seeded generator, so every run replays the same corpus and queries. */
export function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * The port's hybrid score computed the slow, obvious way over every live vector: BM25+ from scratch over the live
 * texts (document frequency, average length), the cosine in float64 (the index keeps float32 vectors, hence
 * agreement to 1e-6), no pruning. Neighbour weights are powers of two, so lengths sum alike in any order.
 */
export function exhaustive(
  live: Map<string, Live>,
  query: {
    vector: Float32Array;
    terms: SparseValues;
    lexicalWeight: number;
    topK: number;
    filter?: VectorFilter;
    speakers?: { terms: number[]; factor: number };
  },
) {
  const merged = new Map<string, Map<number, { frequency: number; own: boolean }>>();
  let totalLength = 0;
  for (const [id, { terms, contextTerms }] of live) {
    const frequencies = new Map<number, { frequency: number; own: boolean }>();
    for (const [sparse, own] of [
      [terms, true],
      [contextTerms, false],
    ] as const) {
      sparse?.indices.forEach((term, i) => {
        const value = sparse.values[i] as number;
        if (!(value > 0)) return;
        const entry = frequencies.get(term) ?? { frequency: 0, own };
        entry.frequency += value;
        frequencies.set(term, entry);
        totalLength += value;
      });
    }
    if (frequencies.size > 0) merged.set(id, frequencies);
  }
  const documents = merged.size;
  const averageLength = totalLength / documents || 1;
  // A chunk holding the term only through its neighbours counts their weighted frequency, at most 1 (term-postings.ts).
  const frequencyOf = (term: number) =>
    [...merged.values()].reduce((sum, terms) => {
      const held = terms.get(term);
      return held ? sum + holdingUnits(held.frequency) : sum;
    }, 0) / HOLDING_UNITS;
  const weights = query.terms.indices.map(
    (term, i) => (query.terms.values[i] as number) * inverseDocumentFrequency(documents, frequencyOf(term)),
  );
  const ceiling = weights.reduce((sum, weight) => sum + weight, 0);
  const norm = (vector: Float32Array) => Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
  const passes = (metadata: VectorMetadata) =>
    Object.entries(query.filter ?? {}).every(([field, value]) => {
      const held = metadata[field as keyof VectorMetadata];
      return Array.isArray(held) ? held.includes(value as string) : held === value;
    });
  // Speaker attribution: once any live chunk holds a named speaker's marker of its own, chunks someone else
  // speaks (SPOKEN_TERM, no named marker) keep `factor`.
  const named = new Set(query.speakers?.terms ?? []);
  const holds = (id: string, test: (term: number) => boolean) => live.get(id)?.terms?.indices.some(test) === true;
  const spokenByNamed = (id: string) => holds(id, (term) => named.has(term));
  const spokenByOther = (id: string) => holds(id, (term) => term === SPOKEN_TERM) && !spokenByNamed(id);
  const attributed = [...live.keys()].some(spokenByNamed);
  const scored = [...live].flatMap(([id, { values, metadata }]) => {
    if (!passes(metadata)) return [];
    const terms = merged.get(id);
    const length = [...(terms?.values() ?? [])].reduce((sum, { frequency }) => sum + frequency, 0);
    let lexical = 0;
    let ownTerms = 0;
    query.terms.indices.forEach((term, i) => {
      const entry = terms?.get(term);
      if (!entry) return;
      if (entry.own) ownTerms += 1;
      lexical += ((weights[i] as number) / ceiling) * saturatedFrequency(entry.frequency, length, averageLength);
    });
    const matched = ownTerms > 0;
    lexical *= ownTermsFactor(ownTerms, query.terms.indices.length);
    const dot = values.reduce((sum, value, i) => sum + value * (query.vector[i] as number), 0);
    const cosine = Math.min(1, Math.max(0, dot / (norm(values) * norm(query.vector))));
    const factor = attributed && spokenByOther(id) ? (query.speakers?.factor as number) : 1;
    const score =
      factor * ((1 - query.lexicalWeight) * cosine + query.lexicalWeight * (matched ? Math.min(1, lexical) : 0));
    return [{ id, score, matched }];
  });
  return {
    top: [...scored].sort((a, b) => b.score - a.score).slice(0, query.topK),
    all: new Map(scored.map(({ id, score }) => [id, score])),
    /** Slots passing the filter with a lexical match (a query term of their own). */
    lexicalMatches: scored.filter(({ matched }) => matched).length,
  };
}
