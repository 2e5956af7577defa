import { vectorItemOf } from '../../cleanup/vectors.ts';
import {
  chunkTerms,
  DEFAULT_NEIGHBOUR_WINDOW,
  neighbourOffsets,
  speakerTermIdsOf,
  textWords,
} from '../lexical/index.ts';
import type { VectorChain, VectorItem } from '../ports.ts';
import type { ContextRecord } from '../record.ts';
import { type ContextStoreDeps, DEFAULT_LEXICAL_WEIGHT, indexingFailed } from './deps.ts';

// An add's vectors in two steps: their shapes (terms, chains, filter attributes) for every chunk of the add, which
// its documents' fingerprints hash, then the embeddings of the chunks it writes (add.ts).

/**
 * Each chunk's terms with its neighbours' in `chunks`' order, or within its own document only (`separate`), from
 * the chunks' words (`textWords`, in the same order).
 */
function termsOf(
  deps: ContextStoreDeps,
  chunks: readonly ContextRecord[],
  words: readonly (readonly string[])[],
  separate: boolean,
) {
  const window = deps.retrieval?.neighbours ?? DEFAULT_NEIGHBOUR_WINDOW;
  const textsOf = (part: readonly ContextRecord[]) => part.map((chunk) => chunk.text);
  if (!separate) return chunkTerms(textsOf(chunks), window, words);
  const terms: ReturnType<typeof chunkTerms> = [];
  // A document's chunks are consecutive (built document by document).
  for (let start = 0, end = 1; start < chunks.length; start = end, end = start + 1) {
    while (end < chunks.length && chunks[end]?.document_id === chunks[start]?.document_id) end += 1;
    terms.push(...chunkTerms(textsOf(chunks.slice(start, end)), window, words.slice(start, end)));
  }
  return terms;
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

/** A chunk's vector item before its embedding: everything but the values (placeholder), and the words it read. */
export interface VectorShapes {
  items: VectorItem[];
  /** Each chunk's words (`textWords`), when the lexical half or the embedder reads them; else empty. */
  words: readonly (readonly string[])[];
}

const NO_VALUES = new Float32Array(0);

/**
 * The chunks' vector items but their values: each chunk's terms, with its neighbours' in this add's order
 * (documents, then their chunks; or its own document's only), for the lexical half, and its filter attributes.
 * Each chunk's words are read once, for its terms and, by an embedder that reads the same words, its vector.
 */
export function vectorShapesOf(
  deps: ContextStoreDeps,
  chunks: readonly ContextRecord[],
  separate: boolean,
): VectorShapes {
  const lexical = (deps.retrieval?.lexicalWeight ?? DEFAULT_LEXICAL_WEIGHT) > 0;
  const words = lexical || deps.embedder.embedWords ? chunks.map((chunk) => textWords(chunk.text)) : [];
  const terms = lexical ? termsOf(deps, chunks, words, separate) : [];
  const chains = lexical ? chainsOf(deps, chunks, separate) : [];
  return { items: chunks.map((chunk, i) => vectorItemOf(chunk, NO_VALUES, terms[i], chains[i])), words };
}

/** The vector items of the chunks at `positions`, embedded (the embedder runs while rows are written). */
export function embeddedItems(
  deps: ContextStoreDeps,
  chunks: readonly ContextRecord[],
  shapes: VectorShapes,
  positions: readonly number[],
): Promise<VectorItem[]> {
  const { embedder } = deps;
  const texts = positions.map((i) => (chunks[i] as ContextRecord).text);
  const embedding = (
    embedder.embedWords
      ? embedder.embedWords(
          texts,
          positions.map((i) => shapes.words[i] as readonly string[]),
          'document',
        )
      : embedder.embed(texts, 'document')
  ).catch((error: unknown) => {
    throw indexingFailed('embedding the documents failed; nothing was added, retry the request', error);
  });
  return embedding.then((vectors) =>
    positions.map((i, j) => ({ ...(shapes.items[i] as VectorItem), values: vectors[j] as Float32Array })),
  );
}
