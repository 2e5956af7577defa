import { vectorItemOf } from '../../cleanup/vectors.ts';
import { createTimeSlice, mapInSlices, runInSlices, type TimeSlice } from '../../history/time-slice.ts';
import {
  DEFAULT_NEIGHBOUR_WINDOW,
  type NeighbourTerms,
  neighbourOffsets,
  ownTermsInSteps,
  speakerTermIdsOf,
  textWords,
} from '../lexical/index.ts';
import type { SparseValues, VectorChain, VectorItem } from '../ports.ts';
import type { ContextRecord } from '../record.ts';
import { type ContextStoreDeps, DEFAULT_LEXICAL_WEIGHT, indexingFailed } from './deps.ts';

// An add's vectors in two steps: their shapes (terms, chains, filter attributes) for every chunk of the add, which
// its documents' fingerprints hash, then the embeddings of the chunks it writes (add.ts).

/** Each chunk's own terms, and its contextTerms when asked for (`ownTermsFirst`), by its position in `chunks`. */
interface ChunkTermsLater {
  own: SparseValues[];
  contextTermsAt(position: number): SparseValues | undefined;
  contextSizeAt(position: number): number;
}

/**
 * Each chunk's terms with its neighbours' in `chunks`' order, or within its own document only (`separate`), from
 * the chunks' words (`textWords`, in the same order).
 */
async function termsOf(
  deps: ContextStoreDeps,
  chunks: readonly ContextRecord[],
  words: readonly (readonly string[])[],
  separate: boolean,
  slice: TimeSlice,
): Promise<ChunkTermsLater> {
  const window = deps.retrieval?.neighbours ?? DEFAULT_NEIGHBOUR_WINDOW;
  const textsOf = (part: readonly ContextRecord[]) => part.map((chunk) => chunk.text);
  if (!separate) {
    const { own, neighbours } = await runInSlices(ownTermsInSteps(textsOf(chunks), window, words), slice);
    return {
      own,
      contextTermsAt: (position) => neighbours.contextTermsAt(position),
      contextSizeAt: (position) => neighbours.contextSizeAt(position),
    };
  }
  const own: SparseValues[] = [];
  // Each chunk's document's neighbour terms and its position among them. A document's chunks are consecutive
  // (built document by document).
  const parts: { neighbours: NeighbourTerms; at: number }[] = [];
  for (let start = 0, end = 1; start < chunks.length; start = end, end = start + 1) {
    while (end < chunks.length && chunks[end]?.document_id === chunks[start]?.document_id) end += 1;
    const steps = ownTermsInSteps(textsOf(chunks.slice(start, end)), window, words.slice(start, end));
    const part = await runInSlices(steps, slice);
    own.push(...part.own);
    for (let at = 0; at < end - start; at++) parts.push({ neighbours: part.neighbours, at });
  }
  const partAt = (position: number) => parts[position] as { neighbours: NeighbourTerms; at: number };
  return {
    own,
    contextTermsAt: (position) => partAt(position).neighbours.contextTermsAt(partAt(position).at),
    contextSizeAt: (position) => partAt(position).neighbours.contextSizeAt(partAt(position).at),
  };
}

/** Where each chunk's contextTerms come from (VectorChain), as `termsOf` sums them: the same neighbours, in order. */
function chainsOf(deps: ContextStoreDeps, chunks: readonly ContextRecord[], separate: boolean): VectorChain[] {
  const window = deps.retrieval?.neighbours ?? DEFAULT_NEIGHBOUR_WINDOW;
  const chains: VectorChain[] = [];
  for (let start = 0, end = 1; start < chunks.length; start = end, end = start + 1) {
    if (separate) while (end < chunks.length && chunks[end]?.document_id === chunks[start]?.document_id) end += 1;
    else end = chunks.length;
    neighbourOffsets(end - start, window).forEach(({ offsets, weights }, i) => {
      const chunk = chunks[start + i] as ContextRecord;
      chains.push({
        neighbours: offsets.map((offset) => (chunks[start + i + offset] as ContextRecord).corresponding_vector_id),
        weights,
        unlent: speakerTermIdsOf(chunk.text),
      });
    });
  }
  return chains;
}

/** An add's chunks' vector items before their embedding (the values), and what makes them whole. */
export interface VectorShapes {
  /** Each chunk's item but its values and contextTerms: what its document's fingerprint hashes, with `contextSizes`. */
  items: VectorItem[];
  /** Each chunk's contextTerms' length (-1: none). */
  contextSizes: number[];
  /**
   * Each chunk's words (`textWords`), when the lexical half or the embedder reads them; else empty. Let go once
   * the embedder has them (embeddedItems): an add holds them no longer than that.
   */
  words: readonly (readonly string[])[];
  /** The chunk's whole vector item, its contextTerms made now (`ownTermsFirst`). */
  itemAt(position: number, values: Float32Array): VectorItem;
}

const NO_VALUES = new Float32Array(0);

/**
 * The chunks' vector items but their values: each chunk's terms, with its neighbours' in this add's order
 * (documents, then their chunks; or its own document's only), for the lexical half, and its filter attributes.
 * Each chunk's words are read once, for its terms and, by an embedder that reads the same words, its vector.
 * The neighbours' terms are made when the item is (`itemAt`), not now: an add holds its items through its rows'
 * writes, and the neighbours' terms are most of their numbers.
 */
export async function vectorShapesOf(
  deps: ContextStoreDeps,
  chunks: readonly ContextRecord[],
  separate: boolean,
): Promise<VectorShapes> {
  // An add of megabytes reads its chunks' words and terms for hundreds of milliseconds: the loop is given back
  // every 10 ms (a 5 MB add held it ~0.9 s: test/security/freezes.test.ts).
  const slice = createTimeSlice();
  const lexical = (deps.retrieval?.lexicalWeight ?? DEFAULT_LEXICAL_WEIGHT) > 0;
  const words: (readonly string[])[] =
    lexical || deps.embedder.embedWords ? await mapInSlices(chunks, (chunk) => textWords(chunk.text), slice) : [];
  const terms = lexical ? await termsOf(deps, chunks, words, separate, slice) : undefined;
  const chains = lexical ? chainsOf(deps, chunks, separate) : [];
  const itemOf = (position: number, values: Float32Array, contextTerms: SparseValues | undefined) => {
    const chunk = chunks[position] as ContextRecord;
    const own = terms?.own[position];
    return vectorItemOf(chunk, values, own && { terms: own, contextTerms }, chains[position]);
  };
  const contextSizes = await mapInSlices(chunks, (_, i) => terms?.contextSizeAt(i) ?? -1, slice);
  return {
    items: chunks.map((_, i) => itemOf(i, NO_VALUES, undefined)),
    contextSizes,
    words,
    itemAt: (position, values) => itemOf(position, values, terms?.contextTermsAt(position)),
  };
}

/** Makes the vector items of the chunks it was given, whole, when they are written. */
export type VectorsToWrite = () => Promise<VectorItem[]>;

/** The embeddings of the chunks at `positions`, from the words `shapes` holds, which it lets go of now. */
function embed(
  { embedder }: ContextStoreDeps,
  chunks: readonly ContextRecord[],
  shapes: VectorShapes,
  positions: readonly number[],
): Promise<Float32Array[]> {
  const texts = positions.map((i) => (chunks[i] as ContextRecord).text);
  const { words } = shapes;
  shapes.words = [];
  return (
    embedder.embedWords
      ? embedder.embedWords(
          texts,
          positions.map((i) => words[i] as readonly string[]),
          'document',
        )
      : embedder.embed(texts, 'document')
  ).catch((error: unknown) => {
    throw indexingFailed('embedding the documents failed; nothing was added, retry the request', error);
  });
}

/**
 * The vector items of the chunks at `positions`, embedded (the embedder runs while rows are written): made whole
 * only when called, just before they are written, so their neighbours' terms die young.
 */
export async function embeddedItems(
  deps: ContextStoreDeps,
  chunks: readonly ContextRecord[],
  shapes: VectorShapes,
  positions: readonly number[],
): Promise<VectorsToWrite> {
  const vectors = await embed(deps, chunks, shapes, positions);
  return async () => {
    // Each item's contextTerms are made here: for a large add, hundreds of milliseconds given back every 10 ms.
    return mapInSlices(positions, (position, j) => shapes.itemAt(position, vectors[j] as Float32Array));
  };
}
