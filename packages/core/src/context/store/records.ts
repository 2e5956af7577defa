import type { TenantKey } from '../../auth/index.ts';
import { splitIntoChunks } from '../chunking/index.ts';
import type { ContextRecord, ContextScope, ContextType, RecordMetadata } from '../record.ts';
import type { DocumentInput } from '../service.ts';
import { chunkIdOf, documentIdOf } from './ids.ts';

/** What one add shares across its documents, after access checks. */
export interface AddContext {
  ownerId: string;
  organizationId: string | null;
  tenant: TenantKey;
  source: string | undefined;
  contextType: ContextType;
  scope: ContextScope;
  metadata: Record<string, unknown>;
  modalities: string[];
  tags: string[];
  now: string;
}

export interface BuiltDocument {
  document: ContextRecord;
  chunks: ContextRecord[];
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' && value !== '' ? value : fallback;
}

function documentMetadata(input: DocumentInput, ctx: AddContext): RecordMetadata {
  const given = ctx.metadata;
  return {
    ...given,
    size:
      input.fileSize ?? (typeof given.size === 'number' ? given.size : new TextEncoder().encode(input.content).length),
    file_name: input.fileName || stringOr(given.file_name, 'untitled'),
    doc_type: input.fileType || stringOr(given.doc_type, 'text/plain'),
    modalities: ctx.modalities,
  };
}

function baseRecord(ctx: AddContext, metadata: RecordMetadata, source: string): Omit<ContextRecord, '_id' | 'kind'> {
  return {
    user_id: ctx.ownerId,
    organization_id: ctx.organizationId,
    parent_context_nodes: [],
    children_context_nodes: [],
    context_type: ctx.contextType,
    tags: ctx.tags,
    source,
    content: '',
    blob: null,
    indexed: false,
    indexable: true,
    governing_policies: null,
    override_policy: false,
    telemetry_data: {},
    createdAt: ctx.now,
    updatedAt: ctx.now,
    scopes: [ctx.scope],
    metadata,
    corresponding_vector_id: '',
    text: '',
    status: 'pending',
    tenant: ctx.tenant,
    document_id: '',
    attempts: 0,
  };
}

/**
 * The document record and its chunk records for one input document. The document starts `pending` and gates
 * the visibility of its chunks (see store/index.ts); chunks are written once, already `indexed`.
 */
export function buildDocument(input: DocumentInput, ctx: AddContext): BuiltDocument {
  const metadata = documentMetadata(input, ctx);
  const source = ctx.source ?? metadata.file_name;
  const documentId = documentIdOf({
    ownerId: ctx.ownerId,
    organizationId: ctx.organizationId,
    source,
    fileName: metadata.file_name,
    content: input.content,
  });
  const base = baseRecord(ctx, metadata, source);
  const chunks: ContextRecord[] = splitIntoChunks(input.content).map((text, index) => {
    const id = chunkIdOf(documentId, index);
    return {
      ...base,
      _id: id,
      kind: 'chunk',
      parent_context_nodes: [documentId],
      content: text,
      text,
      corresponding_vector_id: id,
      indexed: true,
      status: 'indexed',
      document_id: documentId,
    };
  });
  const document: ContextRecord = {
    ...base,
    _id: documentId,
    kind: 'document',
    children_context_nodes: chunks.map((chunk) => chunk._id),
    content: {
      file_name: metadata.file_name,
      file_type: metadata.doc_type,
      size: metadata.size,
      last_modified: input.lastModified ?? null,
      chunks: chunks.length,
    },
    document_id: documentId,
  };
  return { document, chunks };
}

/** `chained`: each document lists the next among its children, the next lists it among its parents. */
export function chainDocuments(built: readonly BuiltDocument[]): void {
  for (let i = 0; i + 1 < built.length; i++) {
    const current = built[i]?.document;
    const next = built[i + 1]?.document;
    if (!current || !next || current._id === next._id) continue;
    current.children_context_nodes.push(next._id);
    next.parent_context_nodes.push(current._id);
  }
}
