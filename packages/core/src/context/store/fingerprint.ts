import { createHash } from 'node:crypto';
import type { ContextRepository, Embedder, VectorItem } from '../ports.ts';
import type { ContextRecord } from '../record.ts';

/**
 * A document's fingerprint: a hash of everything an add writes for it, its document and chunk rows (but the
 * timestamps and the state) and its chunks' vectors (but the values, which the embedder's id and the text decide:
 * terms, the chain naming the neighbours whose terms it holds, filter attributes). A re-add whose fingerprint is the one an `indexed` document
 * row holds would write the same rows and vectors again, so it writes nothing (add.ts).
 *
 * Who keeps it true: an add writes it with the document row (created `indexed`, or claimed `pending`) and keeps it
 * only when it settles that claim itself (ContextRepository.transition with the fingerprint as a condition); every
 * other move of the row removes it, and so does any writer of vectors that are not the add's own (forgetFingerprints).
 */
export function fingerprintOf(
  embedder: Pick<Embedder, 'id' | 'dimension'>,
  document: ContextRecord,
  chunks: readonly ContextRecord[],
  items: readonly VectorItem[],
  /** Each chunk's contextTerms' length (-1: none), when `items` do not hold them yet (add-vectors.ts). */
  contextSizes?: readonly number[],
): string {
  // Three streams, each hashed in one call (a call per field cost more than the hashing): the structure as JSON,
  // which gives every text's and number list's length; the number lists as float64 bytes (a term list's weights as
  // JSON would cost more than the rest together); the texts as they are.
  const structure: unknown[] = [embedder.id, embedder.dimension, storedFields(document)];
  const lists: (readonly number[])[] = [];
  let texts = '';
  chunks.forEach((chunk, i) => {
    const { text, content, ...fields } = storedFields(chunk);
    const { values, terms, contextTerms, chain, text: shown, ...item } = items[i] as VectorItem;
    void values;
    // A chunk's text is its row's content and its vector's text: hashed once. Its neighbours' terms (three times its
    // own, most of the numbers) are not: the chain names the neighbours (their ids hold their content) and their
    // weights, and the code that summed them made its own terms, which are hashed.
    const chunkLists = [terms?.indices, terms?.values, chain?.weights, chain?.unlent];
    structure.push(fields, content === text ? null : content, text.length, item, shown === text ? null : shown);
    structure.push(chain?.neighbours ?? null, contextSizes?.[i] ?? contextTerms?.indices.length ?? -1);
    structure.push(chunkLists.map((list) => list?.length ?? -1));
    for (const list of chunkLists) if (list) lists.push(list);
    texts += text;
  });
  const numbers = new Float64Array(lists.reduce((sum, list) => sum + list.length, 0));
  let at = 0;
  for (const list of lists) {
    numbers.set(list, at);
    at += list.length;
  }
  const json = JSON.stringify(structure);
  const hash = createHash('sha256');
  hash.update(`${json.length}:${json}`);
  hash.update(new Uint8Array(numbers.buffer));
  hash.update(texts);
  // 128 bits: equal fingerprints come from equal inputs, short enough to cost the document row no write unit.
  return hash.digest('base64url').slice(0, 22);
}

/** What a re-add may change of a record without changing what it stores: timestamps and state. */
function storedFields(
  record: ContextRecord,
): Omit<ContextRecord, 'createdAt' | 'updatedAt' | 'status' | 'indexed' | 'attempts' | 'fingerprint'> {
  const { createdAt, updatedAt, status, indexed, attempts, fingerprint, ...rest } = record;
  void [createdAt, updatedAt, status, indexed, attempts, fingerprint];
  return rest;
}

/**
 * Removes the fingerprint of `documentIds` after writing vectors that are not their add's (vectors given back from
 * rows), or after an add's own writes that may have landed after another add's: the next re-add writes everything.
 * Pending rows first: an add that claimed one before this call then fails its settle's condition and settles without
 * its fingerprint; an add that settled before it is cleared by the second move. The status stays as it was.
 */
export async function forgetFingerprints(
  repository: Pick<ContextRepository, 'transition'>,
  documentIds: readonly string[],
): Promise<void> {
  if (documentIds.length === 0) return;
  await repository.transition(documentIds, ['pending'], 'pending');
  await repository.transition(documentIds, ['indexed'], 'indexed');
}
