import { hash } from 'node:crypto';
import { createLru, type Lru } from '../cache/lru.ts';
import { type ChunkTerms, chunkTerms, type NeighbourWindow } from '../context/lexical/index.ts';
import type { TimeSlice } from './time-slice.ts';

/** Messages whose terms are read between two checks of the time slice, and their characters at most. */
const BATCH = 32;
const BATCH_CHARS = 16_384;

/**
 * chunkTerms over all texts, a batch at a time (each batch read with its neighbours, so windows cross batch edges),
 * giving the event loop back when the slice is used up: a request of megabytes does not hold other requests.
 */
export async function slicedChunkTerms(texts: readonly string[], window: NeighbourWindow, slice?: TimeSlice) {
  const out: ChunkTerms[] = [];
  const margin = Math.max(0, Math.floor(window.span));
  for (let from = 0, to = 0; from < texts.length; from = to) {
    // A batch ends after BATCH texts or once it holds BATCH_CHARS characters (at least one text).
    let chars = 0;
    for (to = from; to < texts.length && to - from < BATCH && (to === from || chars < BATCH_CHARS); to += 1) {
      chars += (texts[to] as string).length;
    }
    const start = Math.max(0, from - margin);
    const terms = chunkTerms(texts.slice(start, Math.min(texts.length, to + margin)), window);
    out.push(...terms.slice(from - start, from - start + (to - from)));
    if (slice?.due()) await slice.giveWay();
  }
  return out;
}

/** Histories of more older messages than this are read without the cache (one key per message would be built). */
export const MAX_CACHED_HISTORY = 2_000;

/** A message's terms in its place in the history, and their total (own and lent), as lexicalMatch sums it. */
export interface MessageTerms extends ChunkTerms {
  length: number;
}

/** `terms` with their total, summed in the order lexicalMatch read them in: its own, then those lent. */
export function withLength(terms: ChunkTerms): MessageTerms {
  let length = 0;
  for (const value of terms.terms.values) length += value;
  for (const value of terms.contextTerms?.values ?? []) length += value;
  return { ...terms, length };
}

/** slicedChunkTerms with each text's total, giving the loop back as it goes. */
export async function slicedMessageTerms(
  texts: readonly string[],
  window: NeighbourWindow,
  slice?: TimeSlice,
): Promise<MessageTerms[]> {
  const terms = await slicedChunkTerms(texts, window, slice);
  const out: MessageTerms[] = [];
  for (const one of terms) {
    if (slice?.due()) await slice.giveWay();
    out.push(withLength(one));
  }
  return out;
}

/** Bytes a cached entry holds, roughly: its key's characters and 16 per term (id and value). */
function weightOf(key: string, terms: MessageTerms): number {
  return 2 * key.length + 16 * (terms.terms.indices.length + (terms.contextTerms?.indices.length ?? 0)) + 200;
}

/**
 * The terms of a history's messages remembered across requests: a chat resends its whole history every turn, and
 * reading the terms of each message and of its neighbours was most of the history filter's CPU. A message's terms
 * depend on its text and on its neighbours' within the window, so an entry is keyed by a hash of each text of that
 * window and the window itself. Bounded by bytes (LRU); one per process, shared by every caller: an entry holds
 * only term ids and counts of the texts that make its key (docs/SECURITY.md).
 */
export interface MessageTermsCache {
  /** The terms of each text in order, as `slicedChunkTerms` reads them, with their totals. */
  termsOf(texts: readonly string[], window: NeighbourWindow, slice?: TimeSlice): Promise<MessageTerms[]>;
}

export function createMessageTermsCache({
  maxBytes = 16 * 1024 * 1024,
}: {
  maxBytes?: number;
} = {}): MessageTermsCache {
  const cache: Lru<string, MessageTerms> = createLru({ maxWeight: maxBytes, weigh: weightOf });
  // 128 bits of SHA-256: keys stay short (a window's key names up to nine texts), collisions stay out of reach.
  // One-shot hash: no Hash object per message (createHash's, ~5 KiB a filtering request with the embedder cache's).
  const hashOf = (text: string) => hash('sha256', text, 'buffer').toString('base64url', 0, 16);

  return {
    async termsOf(texts, window, slice) {
      // A history this long is no chat being resent turn by turn: read as before, with no keys built for it.
      if (texts.length > MAX_CACHED_HISTORY) return slicedMessageTerms(texts, window, slice);
      const span = Math.max(0, Math.floor(window.span));
      const hashes: string[] = [];
      for (const text of texts) {
        if (slice?.due()) await slice.giveWay();
        hashes.push(hashOf(text));
      }
      // The window's texts, with where this one sits among them (fewer neighbours at either end of the history).
      const keyOf = (index: number) => {
        const from = Math.max(0, index - span);
        const to = Math.min(texts.length - 1, index + span);
        return `${window.span}/${window.before}/${window.after}:${index - from}:${hashes.slice(from, to + 1).join(',')}`;
      };
      const keys: string[] = [];
      const out: (MessageTerms | undefined)[] = [];
      for (let index = 0; index < texts.length; index += 1) {
        if (slice?.due()) await slice.giveWay();
        keys.push(keyOf(index));
        out.push(cache.get(keys[index] as string));
      }
      // Each run of messages not cached is read with the neighbours its windows reach.
      const fresh: number[] = [];
      for (let first = 0; first < texts.length; first += 1) {
        if (out[first] !== undefined) continue;
        let last = first;
        while (last + 1 < texts.length && out[last + 1] === undefined) last += 1;
        const start = Math.max(0, first - span);
        const read = await slicedChunkTerms(texts.slice(start, Math.min(texts.length, last + span + 1)), window, slice);
        for (let index = first; index <= last; index += 1) {
          if (slice?.due()) await slice.giveWay();
          out[index] = withLength(read[index - start] as ChunkTerms);
          fresh.push(index);
        }
        first = last;
      }
      // Only the newest that fit are kept (a chat resends its history and adds at the end): storing 100,000 entries
      // into a cache that holds a few thousand would only churn it.
      let from = fresh.length;
      for (let room = maxBytes; from > 0; from -= 1) {
        const index = fresh[from - 1] as number;
        room -= weightOf(keys[index] as string, out[index] as MessageTerms);
        if (room < 0) break;
      }
      for (const index of fresh.slice(from)) {
        if (slice?.due()) await slice.giveWay();
        cache.set(keys[index] as string, out[index] as MessageTerms);
      }
      return out as MessageTerms[];
    },
  };
}
