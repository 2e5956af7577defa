/**
 * Feature extraction for the lexical embedder: word unigrams, word bigrams and character 3–5-grams of each word
 * (fastText-style, with `<` `>` word boundaries), each hashed to a 32-bit integer without building substrings.
 */

/** Frequent English function words: kept, but weighted low, so that two unrelated texts do not look alike. */
const STOPWORDS = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have he her his how i if in into is it ' +
    'its me my no not of on or our she so than that the their them then there these they this those to too us was we ' +
    'were what when where which while who why will with would you your'
  ).split(' '),
);

const WORD = /[\p{L}\p{N}\p{M}]+/gu;
// Han and kana are written without spaces: each character is a token, so bigrams are character bigrams.
const UNSPACED_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu;
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

/** Unicode-aware, locale-independent tokenisation (NFKC + lowercase); symbol runs when a text has no letters or digits. */
export function tokenize(text: string): string[] {
  const normalised = text.normalize('NFKC').toLowerCase().replace(UNSPACED_SCRIPT, ' $& ');
  const words = normalised.match(WORD);
  if (words && words.length > 0) return words;
  return normalised.match(SYMBOL_RUN) ?? [];
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

export interface Feature {
  /** Occurrences in the text. */
  tf: number;
  /** Weight of the feature's family (stopwords and their bigrams count less). */
  weight: number;
}

/** Hashed features of a tokenised text, keyed by 32-bit hash. */
export function extractFeatures(
  tokens: readonly string[],
  weights: FeatureWeights = DEFAULT_WEIGHTS,
): Map<number, Feature> {
  const features = new Map<number, Feature>();
  const note = (key: number, weight: number) => {
    const feature = features.get(key);
    if (feature) feature.tf += 1;
    else features.set(key, { tf: 1, weight });
  };
  let previous: { hash: number; stop: boolean } | undefined;
  for (const token of tokens) {
    const stop = STOPWORDS.has(token);
    const hash = hashWord(token, UNIGRAM_SEED);
    note(hash, stop ? weights.stopword : weights.unigram);
    if (previous && !(stop && previous.stop)) {
      const pair = mix(Math.imul(previous.hash, 31) ^ hash ^ BIGRAM_SEED);
      note(pair, stop || previous.stop ? weights.stopBigram : weights.bigram);
    }
    previous = { hash, stop };
    if (!stop) noteCharGrams(token, (key) => note(key, weights.chargram));
  }
  return features;
}

/** Character 3-, 4- and 5-grams of `<token>`, hashed incrementally from each start position. */
function noteCharGrams(token: string, emit: (key: number) => void): void {
  const length = token.length + 2;
  const codeAt = (i: number) => (i === 0 || i === length - 1 ? BOUNDARY : token.charCodeAt(i - 1));
  if (length < 3) return;
  for (let start = 0; start + 3 <= length; start++) {
    let h = CHARGRAM_SEED;
    for (let n = 1; n <= 5 && start + n <= length; n++) {
      h = step(h, codeAt(start + n - 1));
      if (n >= 3) emit(mix(h ^ n));
    }
  }
}
