import { stemmer } from 'stemmer';

/**
 * English function words that carry no topic: dropped before stemming, so a match on "the" or "was" never counts
 * and documents are not scored as long for holding many of them. Short on purpose (a long list drops words such
 * as "first" or "home" that users do ask about).
 */
const STOP_WORDS = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both ' +
    'but by can could did do does doing down during each few for from further had has have having he her here hers ' +
    'herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off on ' +
    'once only or other our ours ourselves out over own same she should so some such than that the their theirs them ' +
    'themselves then there these they this those through to too under until up very was we were what when where ' +
    'which while who whom why will with would you your yours yourself yourselves s t'
  ).split(' '),
);

/**
 * Irregular English forms the Porter stemmer cannot join to their base ("went" and "go", "children" and "child"):
 * frequent verbs and plurals of conversation, mapped before stemming.
 */
const IRREGULAR = new Map(
  (
    'went:go gone:go saw:see seen:see bought:buy made:make took:take taken:take got:get gotten:get met:meet ran:run ' +
    'began:begin begun:begin wrote:write written:write gave:give given:give found:find felt:feel kept:keep ' +
    'left:leave lost:lose forgot:forget forgotten:forget paid:pay said:say sold:sell sent:send spent:spend thought:think told:tell won:win ate:eat ' +
    'eaten:eat drove:drive driven:drive flew:fly flown:fly grew:grow grown:grow knew:know known:know taught:teach ' +
    'caught:catch brought:bring built:build chose:choose chosen:choose drew:draw drawn:draw fell:fall fallen:fall ' +
    'heard:hear held:hold led:lead meant:mean rode:ride sang:sing sung:sing sat:sit slept:sleep spoke:speak ' +
    'spoken:speak stood:stand swam:swim threw:throw thrown:throw understood:understand woke:wake wore:wear ' +
    'worn:wear children:child kids:kid people:person men:man women:woman'
  )
    .split(' ')
    .map((pair) => pair.split(':') as [string, string]),
);

const WORD = /[\p{L}\p{N}\p{M}]+/gu;
// Han and kana are written without spaces: each character is a term of its own.
const UNSPACED_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu;
/** Longer runs are not words (ids, base64): kept whole, never stemmed, so the stemmer's cost stays bounded. */
const MAX_STEMMED_LENGTH = 40;

/**
 * The words of a text as the lexical index reads them: NFKC, lower case, each Han or kana character alone. The
 * lexical embedder reads a text's words the same way (its `tokenize`), so an add tokenises each chunk once for both
 * (Embedder.embedWords).
 */
export function textWords(text: string): string[] {
  return text.normalize('NFKC').toLowerCase().replace(UNSPACED_SCRIPT, ' $& ').match(WORD) ?? [];
}

/** One word's term: irregular forms to their base, then Porter-stemmed; ids and other scripts as they are. */
function termOfWord(word: string): string {
  if (word.length > MAX_STEMMED_LENGTH || !/^[a-z]+$/.test(word)) return word;
  return stemmer(IRREGULAR.get(word) ?? word);
}

/**
 * Each word's term and its id, memoised: stemming and hashing were a third of an add's CPU, and texts repeat few
 * distinct words. Bounded (emptied when full), and long runs (ids, base64) are never kept, so it cannot grow with
 * what callers send.
 */
const MEMO_LIMIT = 50_000;
const memo = new Map<string, { term: string; id: number }>();

function memoOf(word: string): { term: string; id: number } {
  let known = memo.get(word);
  if (known) return known;
  const term = termOfWord(word);
  known = { term, id: termId(term) };
  if (word.length <= MAX_STEMMED_LENGTH) {
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(word, known);
  }
  return known;
}

/**
 * The lexical terms of a text: NFKC, lower case, stop words dropped, irregular forms to their base, Porter-stemmed
 * ("visited" → "visit").
 */
export function lexicalTermsOf(text: string): string[] {
  const terms: string[] = [];
  for (const word of textWords(text)) if (!STOP_WORDS.has(word)) terms.push(memoOf(word).term);
  return terms;
}

/** The ids (`termId`) of `lexicalTermsOf(text)`, in the same order. */
export function lexicalTermIdsOf(text: string): number[] {
  return termIdsOfWords(textWords(text));
}

/** The ids of the terms of a text whose words (`textWords`) are `words`: `lexicalTermIdsOf` of that text. */
export function termIdsOfWords(words: readonly string[]): number[] {
  const ids: number[] = [];
  for (const word of words) if (!STOP_WORDS.has(word)) ids.push(memoOf(word).id);
  return ids;
}

/** A term's id in the sparse space: 32-bit FNV-1a over UTF-16 units, then murmur3's finaliser (unsigned). */
export function termId(term: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < term.length; i++) hash = Math.imul(hash ^ term.charCodeAt(i), 0x01000193);
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  return (hash ^ (hash >>> 16)) >>> 0;
}
