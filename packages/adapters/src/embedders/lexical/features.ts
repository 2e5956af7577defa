/**
 * Feature extraction for the lexical embedder: word unigrams, word bigrams and character 3–5-grams of each word
 * (fastText-style, with `<` `>` word boundaries), each hashed to a 32-bit integer without building substrings.
 */

import { textWords } from '@memgate/core';

/** Frequent English function words: kept, but weighted low, so that two unrelated texts do not look alike. */
const STOPWORDS = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have he her his how i if in into is it ' +
    'its me my no not of on or our she so than that the their them then there these they this those to too us was we ' +
    'were what when where which while who why will with would you your'
  ).split(' '),
);
const SYMBOL_RUN = /\S+/gu;

// Seeds keep the three feature families apart in hash space.
const UNIGRAM_SEED = 0x9e3779b1;
const BIGRAM_SEED = 0x85ebca6b;
const CHARGRAM_SEED = 0xc2b2ae35;
const BOUNDARY = 0x3c; // '<' and '>' are folded into one marker code

export interface FeatureWeights {
  unigram: number;
  stopword: number;
  bigram: number;
  stopBigram: number;
  chargram: number;
}

export const DEFAULT_WEIGHTS: FeatureWeights = {
  unigram: 1,
  stopword: 0.15,
  bigram: 0.8,
  stopBigram: 0.3,
  chargram: 0.25,
};

/**
 * Unicode-aware, locale-independent tokenisation: the lexical index's words (`textWords`: NFKC, lower case, each Han
 * or kana character alone), or symbol runs when a text has no letters or digits.
 */
export function tokenize(text: string): string[] {
  const words = textWords(text);
  if (words.length > 0) return words;
  return text.normalize('NFKC').toLowerCase().match(SYMBOL_RUN) ?? [];
}

/** murmur3's 32-bit finaliser: spreads every input bit over the whole word. */
function mix(h: number): number {
  let x = h ^ (h >>> 16);
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

function step(h: number, code: number): number {
  return Math.imul(h ^ code, 0x01000193) >>> 0; // FNV-1a step
}

function hashWord(word: string, seed: number): number {
  let h = seed;
  for (let i = 0; i < word.length; i++) h = step(h, word.charCodeAt(i));
  return mix(h);
}

const INITIAL_FEATURES = 1024;
/** A chunk has ~1,500 distinct features; a table grown past this (a long query or exchange) is not kept. */
const MAX_KEPT_FEATURES = 1 << 16;

/**
 * Hashed features of one text, in first-seen order (the order their values are summed into the vector, which
 * keeps float rounding, and so every vector, the same as before). An open-addressing table over typed arrays,
 * reused from text to text: embedding is the add path's main CPU cost, and a Map of objects spent most of it.
 */
export class FeatureTable {
  /** Hash of each feature, in first-seen order. */
  keys = new Uint32Array(INITIAL_FEATURES);
  /** Occurrences in the text. */
  counts = new Uint32Array(INITIAL_FEATURES);
  /** Weight of the feature's family (stopwords and their bigrams count less), fixed by its first occurrence. */
  weights = new Float64Array(INITIAL_FEATURES);
  size = 0;
  /** Position + 1 of the feature in `keys`, by open addressing on its hash; 0 is an empty bucket. */
  private buckets = new Int32Array(2 * INITIAL_FEATURES);

  clear(): void {
    // A table grown by one huge text goes back to its first size instead of being held for good.
    if (this.keys.length > MAX_KEPT_FEATURES) {
      this.keys = new Uint32Array(INITIAL_FEATURES);
      this.counts = new Uint32Array(INITIAL_FEATURES);
      this.weights = new Float64Array(INITIAL_FEATURES);
      this.buckets = new Int32Array(2 * INITIAL_FEATURES);
    } else this.buckets.fill(0);
    this.size = 0;
  }

  note(key: number, weight: number): void {
    const mask = this.buckets.length - 1;
    let bucket = key & mask;
    for (;;) {
      const entry = this.buckets[bucket] as number;
      if (entry === 0) break;
      if (this.keys[entry - 1] === key) {
        this.counts[entry - 1] = (this.counts[entry - 1] as number) + 1;
        return;
      }
      bucket = (bucket + 1) & mask;
    }
    this.keys[this.size] = key;
    this.counts[this.size] = 1;
    this.weights[this.size] = weight;
    this.size++;
    this.buckets[bucket] = this.size;
  }

  /**
   * Makes room for `features` more features before they are noted (an upper bound), so `note`, the hot loop's call,
   * never grows the table and stays small enough to be inlined (12% of the embedder's time).
   */
  reserve(features: number): void {
    while (this.size + features > this.keys.length) this.grow();
  }

  /** Doubles the storage; buckets stay at most half full. */
  private grow(): void {
    const capacity = this.keys.length * 2;
    const keys = new Uint32Array(capacity);
    keys.set(this.keys);
    const counts = new Uint32Array(capacity);
    counts.set(this.counts);
    const weights = new Float64Array(capacity);
    weights.set(this.weights);
    this.keys = keys;
    this.counts = counts;
    this.weights = weights;
    this.buckets = new Int32Array(capacity * 2);
    const mask = this.buckets.length - 1;
    for (let i = 0; i < this.size; i++) {
      let bucket = (this.keys[i] as number) & mask;
      while (this.buckets[bucket] !== 0) bucket = (bucket + 1) & mask;
      this.buckets[bucket] = i + 1;
    }
  }
}

/** At most a token's unigram, its bigram, and 3 character n-grams per character (the n-grams of `<token>`). */
function roomFor(token: string): number {
  return 2 + 3 * token.length;
}

/** Notes the hashed features of a tokenised text in `table` (cleared first). No closures: this is the hot loop. */
export function extractFeatures(
  tokens: readonly string[],
  table: FeatureTable,
  weights: FeatureWeights = DEFAULT_WEIGHTS,
): FeatureTable {
  table.clear();
  // Room for every feature the text can have, made once; a long text's, token by token (only what it uses is kept).
  let room = 0;
  for (let t = 0; t < tokens.length; t++) room += roomFor(tokens[t] as string);
  const long = room > MAX_KEPT_FEATURES;
  if (!long) table.reserve(room);
  let previousHash = 0;
  let previousStop = false;
  for (let t = 0; t < tokens.length; t++) {
    const token = tokens[t] as string;
    if (long) table.reserve(roomFor(token));
    const stop = STOPWORDS.has(token);
    const hash = hashWord(token, UNIGRAM_SEED);
    table.note(hash, stop ? weights.stopword : weights.unigram);
    if (t > 0 && !(stop && previousStop)) {
      const pair = mix(Math.imul(previousHash, 31) ^ hash ^ BIGRAM_SEED);
      table.note(pair, stop || previousStop ? weights.stopBigram : weights.bigram);
    }
    previousHash = hash;
    previousStop = stop;
    if (!stop) noteCharGrams(token, table, weights.chargram);
  }
  return table;
}

/** Character 3-, 4- and 5-grams of `<token>`, hashed incrementally from each start position. */
function noteCharGrams(token: string, table: FeatureTable, weight: number): void {
  const length = token.length + 2;
  if (length < 3) return;
  for (let start = 0; start + 3 <= length; start++) {
    let h = CHARGRAM_SEED;
    for (let n = 1; n <= 5 && start + n <= length; n++) {
      const i = start + n - 1;
      h = step(h, i === 0 || i === length - 1 ? BOUNDARY : token.charCodeAt(i - 1));
      if (n >= 3) table.note(mix(h ^ n), weight);
    }
  }
}
