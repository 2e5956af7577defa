import type { ContextPassage } from './context-message.ts';
import { splitSentences } from './sentences.ts';

const STOPWORDS = new Set(
  'a an and are as at be but by can could did do does for from had has have how i in is it its me my of on or our should so than that the their them then there these they this to was we were what when where which who why will with would you your about into over also just not no yes please tell'.split(
    ' ',
  ),
);

/** Lower-case content words with a light plural/suffix fold, so "caches" matches "cache". */
export function termsOf(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return words
    .filter((word) => !STOPWORDS.has(word) && (word.length > 1 || /\d/.test(word)))
    .map((word) => word.replace(/(?:ies)$/, 'y').replace(/(?<=\w{3})(?:es|s)$/, ''));
}

/** The sentences of `text`, trimmed, empty ones dropped (Unicode's sentence boundaries, as ICU finds them). */
export function sentencesOf(text: string): string[] {
  return splitSentences(text)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence !== '');
}

/**
 * The sentences of `passages` that best answer `question`, in their original order: scored by distinct question
 * terms they contain, weighted by how rare the term is across all sentences (idf), normalised for length.
 */
export function selectSentences(question: string, passages: readonly ContextPassage[], limit = 3): string[] {
  const wanted = new Set(termsOf(question));
  if (wanted.size === 0) return [];
  // Stored exchanges come back as context too ("User: …? Assistant: …"): questions answer nothing, labels are
  // dropped, and a sentence already seen in another passage is not quoted twice.
  const seen = new Set<string>();
  const sentences = passages
    .flatMap((passage) => sentencesOf(passage.text))
    .map((sentence) => sentence.replace(/^(?:user|assistant):\s*/i, ''))
    .filter((sentence) => {
      const key = sentence.toLowerCase();
      if (sentence.endsWith('?') || seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  const termSets = sentences.map((sentence) => new Set(termsOf(sentence)));
  const frequency = new Map<string, number>();
  for (const terms of termSets)
    for (const term of terms) if (wanted.has(term)) frequency.set(term, (frequency.get(term) ?? 0) + 1);
  const scored = termSets.map((terms, index) => {
    let score = 0;
    for (const term of terms) {
      const seen = frequency.get(term);
      if (seen) score += Math.log(1 + sentences.length / seen);
    }
    return { index, score: score / Math.sqrt(Math.max(4, terms.size)) };
  });
  // Best first; a sentence another picked one contains says nothing more (a stored answer cut at a token limit,
  // "The launch is", beside the whole "The launch is planned for March."): the longer one stands for both.
  let picked: { index: number; key: string }[] = [];
  for (const { index, score } of scored.sort((a, b) => b.score - a.score || a.index - b.index)) {
    if (score <= 0) break;
    const key = (sentences[index] as string).toLowerCase();
    if (picked.some((other) => other.key.includes(key))) continue;
    const others = picked.filter((other) => !key.includes(other.key));
    if (others.length === limit) continue;
    picked = [...others, { index, key }];
  }
  return picked.sort((a, b) => a.index - b.index).map((item) => sentences[item.index] as string);
}
