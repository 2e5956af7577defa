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

/** What a document's record and its chunks' records share. */
type SharedFields = Omit<ContextRecord, OwnField>;
type OwnField =
  | '_id'
  | 'kind'
  | 'parent_context_nodes'
  | 'children_context_nodes'
  | 'content'
  | 'text'
  | 'corresponding_vector_id'
  | 'indexed'
  | 'status'
  | 'document_id';

function sharedFields(ctx: AddContext, metadata: RecordMetadata, source: string): SharedFields {
  return {
    user_id: ctx.ownerId,
    organization_id: ctx.organizationId,
    context_type: ctx.contextType,
    tags: ctx.tags,
    source,
    blob: null,
    indexable: true,
    governing_policies: null,
    override_policy: false,
    telemetry_data: {},
    createdAt: ctx.now,
    updatedAt: ctx.now,
    scopes: [ctx.scope],
    metadata,
    tenant: ctx.tenant,
    attempts: 0,
  };
}

/**
 * A record in one literal, its fields in the order the rows have always had (the fingerprint hashes them as JSON).
 * A spread of the shared fields gave each record a hidden class of its own once the spread had seen a few shapes of
 * metadata (~1 KB a chunk, held through an add's writes).
 */
function recordOf(shared: SharedFields, own: Pick<ContextRecord, OwnField>): ContextRecord {
  return {
    user_id: shared.user_id,
    organization_id: shared.organization_id,
    parent_context_nodes: own.parent_context_nodes,
    children_context_nodes: own.children_context_nodes,
    context_type: shared.context_type,
    tags: shared.tags,
    source: shared.source,
    content: own.content,
    blob: shared.blob,
    indexed: own.indexed,
    indexable: shared.indexable,
    governing_policies: shared.governing_policies,
    override_policy: shared.override_policy,
    telemetry_data: shared.telemetry_data,
    createdAt: shared.createdAt,
    updatedAt: shared.updatedAt,
    scopes: shared.scopes,
    metadata: shared.metadata,
    corresponding_vector_id: own.corresponding_vector_id,
    text: own.text,
    status: own.status,
    tenant: shared.tenant,
    document_id: own.document_id,
    attempts: shared.attempts,
    _id: own._id,
    kind: own.kind,
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
  const shared = sharedFields(ctx, metadata, source);
  // Chunks list no children: one empty list for all, as before.
  const noChildren: string[] = [];
  const chunks: ContextRecord[] = splitIntoChunks(input.content).map((text, index) => {
    const id = chunkIdOf(documentId, index);
    return recordOf(shared, {
      _id: id,
      kind: 'chunk',
      parent_context_nodes: [documentId],
      children_context_nodes: noChildren,
      content: text,
      text,
      corresponding_vector_id: id,
      indexed: true,
      status: 'indexed',
      document_id: documentId,
    });
  });
  const document = recordOf(shared, {
    _id: documentId,
    kind: 'document',
    parent_context_nodes: [],
    children_context_nodes: chunks.map((chunk) => chunk._id),
    content: {
      file_name: metadata.file_name,
      file_type: metadata.doc_type,
      size: metadata.size,
      last_modified: input.lastModified ?? null,
      chunks: chunks.length,
    },
    text: '',
    corresponding_vector_id: '',
    indexed: false,
    status: 'pending',
    document_id: documentId,
  });
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
