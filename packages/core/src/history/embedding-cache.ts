import { createHash } from 'node:crypto';
import { createLru } from '../cache/lru.ts';
import type { Embedder } from '../context/ports.ts';

/** An Embedder that remembers vectors of texts it has seen (LRU by content hash): chat history repeats every turn. */
export function createCachedEmbedder({
  embedder,
  maxEntries = 10_000,
}: {
  embedder: Embedder;
  maxEntries?: number;
}): Embedder {
  const cache = createLru<string, Float32Array>({ maxWeight: maxEntries });
  const keyOf = (text: string, purpose: string) =>
    `${purpose}:${createHash('sha256').update(text).digest('base64url')}`;

  return {
    id: embedder.id,
    dimension: embedder.dimension,
    async embed(texts, purpose) {
      const keys = texts.map((text) => keyOf(text, purpose));
      const missing: number[] = [];
      const out: (Float32Array | undefined)[] = keys.map((key, index) => {
        const hit = cache.get(key);
        if (!hit) missing.push(index);
        return hit;
      });
      if (missing.length > 0) {
        const fresh = await embedder.embed(
          missing.map((index) => texts[index] as string),
          purpose,
        );
        missing.forEach((index, position) => {
          const vector = fresh[position] as Float32Array;
          out[index] = vector;
          cache.set(keys[index] as string, vector);
        });
      }
      return out as Float32Array[];
    },
  };
}
