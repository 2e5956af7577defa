import { lexicalTermsOf, termId } from './terms.ts';

/**
 * A speaker label opening a text: one to three capitalised words, a colon, then a space ("Caroline: I went…",
 * "User: …", "Dr Smith: …"). A transcript stored turn by turn (a chat's exchanges, a meeting's notes) names who
 * speaks each turn this way; a colon inside a time, a URL or a sentence does not open a label.
 */
const SPEAKER_LABEL = /^\s*(\p{Lu}[\p{L}\p{M}'’.-]*(?:[ \t]\p{Lu}[\p{L}\p{M}'’.-]*){0,2})[ \t]*:\s/u;

/** A speaker's marker term: its own id space (no word holds a NUL), so it never matches the word itself. */
const speakerMarker = (term: string) => termId(`\u0000speaker\u0000${term}`);

/** The marker every text opening with a speaker label holds, whoever speaks: the chunks that are someone's turn. */
export const SPOKEN_TERM = termId('\u0000spoken');

/**
 * The speaker markers of a text opening with a speaker label (SPOKEN_TERM, then one per term of the label, as
 * `lexicalTermsOf` reads it), else none. A chunk holds them as terms of its own, never lent to its neighbours
 * (chunkTerms), so the index knows who speaks each chunk without a field of its own.
 */
export function speakerTermIdsOf(text: string): number[] {
  // A label ends with a colon: without one the pattern cannot match, and its Unicode classes are never compiled (about
  // a millisecond of a cold start's first add whose text has no colon).
  if (!text.includes(':')) return [];
  const label = SPEAKER_LABEL.exec(text)?.[1];
  if (label === undefined) return [];
  const speakers = [...new Set(lexicalTermsOf(label).map(speakerMarker))];
  return speakers.length > 0 ? [SPOKEN_TERM, ...speakers] : [];
}

/**
 * The markers a query's words would have as speakers: a query naming someone whose turns the tenant holds ("What
 * did Caroline paint?") is about what that person said, not what others said (VectorQuery.speakers).
 */
export function querySpeakerIds(query: string): number[] {
  return [...new Set(lexicalTermsOf(query).map(speakerMarker))].sort((a, b) => a - b);
}
