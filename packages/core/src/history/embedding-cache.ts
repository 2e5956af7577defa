import { hash } from 'node:crypto';
import { createLru } from '../cache/lru.ts';
import type { Embedder } from '../context/ports.ts';
import { createTimeSlice } from './time-slice.ts';

/** An Embedder that remembers vectors of texts it has seen (LRU by content hash): chat history repeats every turn. */
export function createCachedEmbedder({
  embedder,
  maxEntries = 10_000,
}: {
  embedder: Embedder;
  maxEntries?: number;
}): Embedder {
  const cache = createLru<string, Float32Array>({ maxWeight: maxEntries });
  const keyOf = (text: string, purpose: string) => `${purpose}:${hash('sha256', text, 'base64url')}`;

  return {
    id: embedder.id,
    dimension: embedder.dimension,
    async embed(texts, purpose) {
      // Hashing 100,000 messages takes a while: the loop is given back every few milliseconds.
      const slice = createTimeSlice();
      const keys: string[] = [];
      const missing: number[] = [];
      const out: (Float32Array | undefined)[] = [];
      for (const [index, text] of texts.entries()) {
        if (slice.due()) await slice.giveWay();
        const key = keyOf(text, purpose);
        keys.push(key);
        const hit = cache.get(key);
        if (!hit) missing.push(index);
        out.push(hit);
      }
      if (missing.length > 0) {
        const fresh = await embedder.embed(
          missing.map((index) => texts[index] as string),
          purpose,
        );
        // Only the last `maxEntries` new vectors are kept: the others would push each other out in this call.
        const keepFrom = missing.length - maxEntries;
        for (const [position, index] of missing.entries()) {
          if (slice.due()) await slice.giveWay();
          const vector = fresh[position] as Float32Array;
          out[index] = vector;
          if (position >= keepFrom) cache.set(keys[index] as string, vector);
        }
      }
      return out as Float32Array[];
    },
  };
}
