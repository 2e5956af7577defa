import type { Principal } from '../auth/index.ts';
import type { ContextRecord, ContextScope, ContextType, Page } from './record.ts';

/** One document of an add request (spec 2.1), after validation at the edge. */
export interface DocumentInput {
  content: string;
  fileName?: string;
  fileType?: string;
  fileSize?: number;
  lastModified?: string;
}

export interface AddInput {
  user_id?: string;
  organization_id?: string | null;
  documents: DocumentInput[];
  source?: string;
  context_type?: ContextType;
  scope?: ContextScope;
  metadata?: Record<string, unknown>;
  chained?: boolean;
  tags?: string[];
  /**
   * The documents are unrelated (the proxy's captured exchanges, stored together in one add): a chunk's lexical
   * context comes from the neighbours in its own document only, as if each document were added alone. Not part of
   * the HTTP API.
   */
  separateDocuments?: boolean;
}

export interface AddResult {
  contextIds: string[];
  documents: { contextId: string; fileName: string; chunks: number }[];
}

export interface SearchInput {
  query: string;
  similarity_threshold: number;
  minimum_similarity_threshold: number;
  scope?: ContextScope;
  top_k?: number;
  user_id?: string;
  organization_id?: string;
  metadata?: Record<string, unknown>;
}

export interface SearchHit {
  contextId: string;
  contextData: string;
  score: number;
  documentId: string;
  fileName: string;
  source: string;
}

export interface DeleteInput {
  source?: string;
  user_id?: string | null;
  organization_id?: string | null;
  by_doc?: boolean;
  by_id?: boolean;
}

export interface ViewInput {
  /** Another user's records (their organization records only); needs `context:admin`. */
  user_id?: string;
  organization_id?: string;
  context_type?: ContextType;
  scope?: ContextScope;
  limit?: number;
  cursor?: string;
}

export interface DocumentSummary {
  contextId: string;
  fileName: string;
  docType: string;
  size: number;
  source: string;
  context_type: ContextType;
  chunks: number;
  scopes: string[];
  organization_id: string | null;
  createdAt: string;
  updatedAt: string;
}

/**
 * The context store as the HTTP areas, the proxy and the chat use it. Every method enforces tenancy from
 * `principal`; none trusts a body field to widen what the caller may see.
 */
export interface ContextStore {
  add(principal: Principal, input: AddInput): Promise<AddResult>;
  search(principal: Principal, input: SearchInput): Promise<SearchHit[]>;
  delete(principal: Principal, input: DeleteInput): Promise<void>;
  view(principal: Principal, input: ViewInput): Promise<Page<ContextRecord>>;
  viewDocs(principal: Principal, input: ViewInput): Promise<Page<DocumentSummary>>;
  /** The organizations of records the caller can see (e.g. injected context); gone or foreign ids are `unknown`. */
  originsOf(principal: Principal, contextIds: readonly string[]): Promise<{ organizations: string[]; unknown: number }>;
}
