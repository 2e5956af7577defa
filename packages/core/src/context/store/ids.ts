import { createHash } from 'node:crypto';

export interface DocumentIdentity {
  ownerId: string;
  organizationId: string | null;
  source: string;
  fileName: string;
  content: string;
}

/**
 * The document's id, derived from what makes it the same document (DESIGN.md section 3): adding it again gives the
 * same id, so the add replaces it instead of duplicating it.
 */
export function documentIdOf({ ownerId, organizationId, source, fileName, content }: DocumentIdentity): string {
  const hash = createHash('sha256');
  // Length-prefixed parts: no two different tuples can hash the same input.
  for (const part of [ownerId, organizationId ?? '\u0000', source, fileName]) hash.update(`${part.length}:${part}|`);
  hash.update(content);
  return `doc_${hash.digest('hex').slice(0, 32)}`;
}

/** The id of a document's chunk at `position` (also its vector's id): stable across re-adds of the same text. */
export function chunkIdOf(documentId: string, position: number): string {
  return `${documentId}.${position.toString().padStart(5, '0')}`;
}

/** True when `id` names a chunk of `documentId` (children lists also hold chained documents). */
export function isChunkOf(id: string, documentId: string): boolean {
  return id.startsWith(`${documentId}.`);
}
