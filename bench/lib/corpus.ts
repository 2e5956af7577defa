/**
 * Synthetic but word-like text for the context store, repeatable from a seed. Words follow a Zipf law over a
 * vocabulary of a few thousand, as in natural text: a few words are in most chunks (their inverse document frequency
 * is near 0), most are rare, so a query made of a chunk's own less common words has relevant chunks that score
 * clearly above the rest (a 75-word vocabulary put every word in nearly every chunk: lexical scores near 0, and the
 * proxy's context injection found nothing above its floor).
 */
import { lexicalTermsOf } from '@memgate/core';

/** Words of the vocabulary; a word's rank (0 = most frequent) is its index. */
const VOCABULARY_SIZE = 4000;
/** Zipf exponent: the word of rank r is drawn with probability ∝ 1 / (r + 1)^s. */
const ZIPF_EXPONENT = 1;
/** Queries skip the most frequent words, as a user's query names what it is about, not the commonest words. */
const COMMON_WORDS = 60;
const QUERY_WORDS = 5;
/** Documents of the smallest seeded corpus (1,000 chunks, 10 per document): queries target their chunks. */
const QUERY_DOCUMENTS = 100;
const PARAGRAPHS_PER_DOCUMENT = 10;

/** mulberry32: a small seeded generator with good low bits (an LCG's low bits repeat with short periods). */
function generator(seed: number): () => number {
  let state = (Math.imul(seed, 2654435761) + 0x6d2b79f5) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ONSETS = ['b', 'c', 'd', 'f', 'g', 'h', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'w', 'z', 'br', 'cr'];
const MORE_ONSETS = ['dr', 'fl', 'gr', 'pl', 'pr', 'sh', 'sl', 'st', 'tr', 'ch', 'th'];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'a', 'e', 'i', 'o', 'ai', 'ea', 'ou'];
const CODAS = ['', '', 'n', 'r', 'l', 'm', 's', 't', 'x', 'nd', 'rt', 'ck'];

/**
 * The vocabulary: pronounceable made-up words of two or three syllables, each a distinct lexical term of the product
 * (no stop word, no two words stemming to the same term), so a word's rank is its term's rank.
 */
const VOCABULARY: readonly string[] = (() => {
  const next = generator(17);
  const pick = (list: readonly string[]) => list[Math.floor(next() * list.length)] as string;
  const onsets = [...ONSETS, ...MORE_ONSETS];
  const words: string[] = [];
  const terms = new Set<string>();
  while (words.length < VOCABULARY_SIZE) {
    const syllables = next() < 0.75 ? 2 : 3;
    let word = '';
    for (let i = 0; i < syllables; i++) word += pick(onsets) + pick(VOWELS);
    word += pick(CODAS);
    const term = lexicalTermsOf(word);
    if (term.length !== 1 || terms.has(term[0] as string)) continue;
    terms.add(term[0] as string);
    words.push(word);
  }
  return words;
})();

/** Cumulative Zipf weights by rank, for drawing a rank with one uniform number and a binary search. */
const CUMULATIVE: Float64Array = (() => {
  const cumulative = new Float64Array(VOCABULARY_SIZE);
  let sum = 0;
  for (let rank = 0; rank < VOCABULARY_SIZE; rank++) {
    sum += 1 / (rank + 1) ** ZIPF_EXPONENT;
    cumulative[rank] = sum;
  }
  return cumulative;
})();

function zipfRank(uniform: number): number {
  const target = uniform * (CUMULATIVE[VOCABULARY_SIZE - 1] as number);
  let low = 0;
  let high = VOCABULARY_SIZE - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((CUMULATIVE[middle] as number) < target) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The ranks of a paragraph's words, sentence by sentence (8 to 15 words each), about `chars` characters in all. */
function paragraphRanks(seed: number, chars: number): number[][] {
  const next = generator(seed);
  const sentences: number[][] = [];
  let length = 0;
  while (length < chars) {
    const ranks = Array.from({ length: 8 + Math.floor(next() * 8) }, () => zipfRank(next()));
    sentences.push(ranks);
    length += ranks.reduce((sum, rank) => sum + (VOCABULARY[rank] as string).length + 1, 1);
  }
  return sentences;
}

/** A sentence-built paragraph of about `chars` characters (default ~1 KB, one chunk of the store's chunker). */
export function paragraph(seed: number, chars = 950): string {
  return paragraphRanks(seed, chars)
    .map((ranks) => {
      const sentence = `${ranks.map((rank) => VOCABULARY[rank] as string).join(' ')}.`;
      return sentence.charAt(0).toUpperCase() + sentence.slice(1);
    })
    .join(' ');
}

/** A document of `paragraphs` ~1 KB paragraphs separated by blank lines: the chunker makes one chunk of each. */
export function documentText(seed: number, paragraphs: number): string {
  return Array.from({ length: paragraphs }, (_, i) => paragraph(seed * 1000 + i)).join('\n\n');
}

/**
 * A short query (what a user would type): five of the less common words of one chunk of the 1,000-chunk corpus
 * (document seeds 0 to 99, which every seeded corpus holds), in a random order, so each query has a chunk it is
 * about and the chunks sharing its rarer words score clearly above the others.
 */
export function queryText(seed: number): string {
  const next = generator(seed + 7919);
  const target = Math.floor(next() * QUERY_DOCUMENTS * PARAGRAPHS_PER_DOCUMENT);
  const document = Math.floor(target / PARAGRAPHS_PER_DOCUMENT);
  const ranks = paragraphRanks(document * 1000 + (target % PARAGRAPHS_PER_DOCUMENT), 950).flat();
  const candidates = [...new Set(ranks.filter((rank) => rank >= COMMON_WORDS))];
  const chosen: number[] = [];
  while (chosen.length < QUERY_WORDS && candidates.length > 0) {
    chosen.push(candidates.splice(Math.floor(next() * candidates.length), 1)[0] as number);
  }
  return chosen.map((rank) => VOCABULARY[rank] as string).join(' ');
}

/**
 * The body of one context add: `documents` documents of `chunksPerDocument` chunks. Document `i` is built from seed
 * `firstSeed + i`, so calls with disjoint seed ranges never add the same document twice (which would replace it).
 */
export function addBody({
  firstSeed,
  documents,
  chunksPerDocument,
  source = 'bench',
}: {
  firstSeed: number;
  documents: number;
  chunksPerDocument: number;
  source?: string;
}) {
  return {
    source,
    documents: Array.from({ length: documents }, (_, i) => {
      const seed = firstSeed + i;
      const content = documentText(seed, chunksPerDocument);
      return {
        content,
        fileName: `bench-${seed}.txt`,
        fileType: 'txt',
        fileSize: content.length,
        lastModified: '2026-01-01T00:00:00.000Z',
      };
    }),
  };
}
