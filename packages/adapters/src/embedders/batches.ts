/**
 * Runs `work` over consecutive slices of at most `size` texts and (when given) `maxChars` characters, in order, and
 * concatenates the results. A single text longer than `maxChars` goes alone.
 */
export async function inBatches<R>(
  texts: readonly string[],
  limits: { size: number; maxChars?: number },
  work: (batch: string[]) => Promise<R[]>,
): Promise<R[]> {
  const results: R[] = [];
  let batch: string[] = [];
  let chars = 0;
  for (const text of texts) {
    const full =
      batch.length >= limits.size || (limits.maxChars !== undefined && chars + text.length > limits.maxChars);
    if (batch.length > 0 && full) {
      results.push(...(await work(batch)));
      batch = [];
      chars = 0;
    }
    batch.push(text);
    chars += text.length;
  }
  if (batch.length > 0) results.push(...(await work(batch)));
  return results;
}
