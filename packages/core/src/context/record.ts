import type { TenantKey } from '../auth/index.ts';

export const CONTEXT_TYPES = ['resource', 'conversation', 'instruction'] as const;
export type ContextType = (typeof CONTEXT_TYPES)[number];

export const CONTEXT_SCOPES = ['internal', 'external'] as const;
export type ContextScope = (typeof CONTEXT_SCOPES)[number];

/**
 * Lifecycle of a record between DynamoDB and the vector index (no distributed transactions):
 * `pending` (written, vectors not yet confirmed) → `indexed` (visible) → `deleting` (hidden, cleanup in progress).
 * `failed` is a record the cleanup gave up re-indexing. Only `indexed` records are ever shown.
 */
export type RecordStatus = 'pending' | 'indexed' | 'deleting' | 'failed';

export interface RecordMetadata {
  size: number;
  file_name: string;
  doc_type: string;
  modalities: string[];
  [key: string]: unknown;
}

/** A stored context record: the spec's fields (snake_case, as the view returns them) plus bookkeeping. */
export interface ContextRecord {
  _id: string;
  kind: 'document' | 'chunk';
  user_id: string;
  organization_id: string | null;
  parent_context_nodes: string[];
  children_context_nodes: string[];
  context_type: ContextType;
  tags: string[];
  source: string;
  content: Record<string, unknown> | string;
  blob: unknown;
  indexed: boolean;
  indexable: boolean;
  governing_policies: string | string[] | null;
  override_policy: boolean;
  telemetry_data: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  scopes: string[];
  metadata: RecordMetadata;
  corresponding_vector_id: string;
  text: string;
  /** Bookkeeping, never shown by the API. */
  status: RecordStatus;
  tenant: TenantKey;
  /** Document id for chunks; own id for documents. */
  document_id: string;
  /** Re-index attempts made by the cleanup. */
  attempts: number;
  /**
   * Documents only: what the add that wrote the document's rows and vectors was made of (store/fingerprint.ts), kept
   * while they are known to be exactly that add's. An identical re-add of an `indexed` document writes nothing.
   */
  fingerprint?: string;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** A page of a listing that can also resume right after any of its items, for a reader that keeps only some. */
export interface ListingPage<T> extends Page<T> {
  /** The cursor that resumes the listing right after `items[index]`, as opaque and bound to it as `nextCursor`. */
  cursorAfter(index: number): string;
}
