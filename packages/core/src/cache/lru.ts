/**
 * A least-recently-used map bounded by total weight (entries by default; a text cache can weigh its keys by length).
 * Reading an entry makes it the most recent; setting one past the bound drops the least recent until it fits. An
 * entry heavier than the whole bound is not kept.
 */
export interface Lru<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): void;
  delete(key: K): void;
}

export function createLru<K, V>({
  maxWeight,
  weigh = () => 1,
}: {
  maxWeight: number;
  weigh?: (key: K, value: V) => number;
}): Lru<K, V> {
  const entries = new Map<K, { value: V; weight: number }>(); // Map order is the recency order, oldest first
  let total = 0;
  const remove = (key: K) => {
    const entry = entries.get(key);
    if (entry === undefined) return;
    entries.delete(key);
    total -= entry.weight;
  };
  return {
    get(key) {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      entries.delete(key);
      entries.set(key, entry);
      return entry.value;
    },
    set(key, value) {
      remove(key);
      const weight = weigh(key, value);
      if (weight > maxWeight) return;
      entries.set(key, { value, weight });
      total += weight;
      while (total > maxWeight) remove(entries.keys().next().value as K);
    },
    delete: remove,
  };
}
