import { SPOKEN_TERM, type VectorQuery } from '@memgate/core';
import type { NamespaceStore } from './store.ts';

/** No attribution: every slot keeps its score. */
export const UNATTRIBUTED = () => 1;

const NAMED = 1;
const OTHER = 2;

/**
 * Speaker attribution (VectorQuery.speakers): when some slot is spoken by a speaker the query names (it holds the
 * speaker's marker as a term of its own), each slot spoken by someone else (SPOKEN_TERM without a named marker)
 * has its score multiplied by `factor`; slots no speaker label opens keep theirs. Scaling only lowers scores, so
 * a slot's cosine and lexical match still bound its score (hybrid.ts), and a slot the query's speaker speaks holds
 * the name among its words (a lexical candidate).
 */
export function speakerFactors(store: NamespaceStore, speakers: VectorQuery['speakers']): (slot: number) => number {
  if (!speakers) return UNATTRIBUTED;
  const { terms, factor } = speakers;
  if (!(factor >= 0 && factor <= 1)) throw new Error(`speakers.factor must be from 0 to 1, got ${factor}`);
  if (terms.length === 0 || factor === 1) return UNATTRIBUTED;
  const named = store.lexical.score({ indices: terms, values: terms.map(() => 1) }, undefined);
  if (named.count === 0) return UNATTRIBUTED; // the query names no one who speaks here
  const speaker = new Uint8Array(store.slots.length);
  for (let i = 0; i < named.count; i++) speaker[named.slots[i] as number] = NAMED;
  const spoken = store.lexical.score({ indices: [SPOKEN_TERM], values: [1] }, undefined);
  for (let i = 0; i < spoken.count; i++) {
    const slot = spoken.slots[i] as number;
    if (speaker[slot] !== NAMED) speaker[slot] = OTHER;
  }
  return (slot) => (speaker[slot] === OTHER ? factor : 1);
}
