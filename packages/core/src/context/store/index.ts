import type { ContextStore } from '../service.ts';
import { addDocuments } from './add.ts';
import { deleteContext } from './delete.ts';
import type { ContextStoreDeps } from './deps.ts';
import { originsOf } from './origins.ts';
import { searchContext } from './search.ts';
import { createQuietTenants } from './tags-read.ts';
import { viewContext, viewDocuments } from './view.ts';
import { createVisibilityCache, DEFAULT_VISIBILITY_CACHE_BYTES } from './visibility-cache.ts';

export { MAX_DOCUMENT_CHARS, MAX_DOCUMENTS, parseModalities } from './add.ts';
export {
  type ContextStoreDeps,
  DEFAULT_LEXICAL_WEIGHT,
  DEFAULT_SPEAKER_FACTOR,
  type RetrievalSettings,
  type StoreLog,
} from './deps.ts';
export { chunkIdOf, documentIdOf } from './ids.ts';
export { DEFAULT_TOP_K, MAX_FETCH, MAX_QUERY_CHARS, MAX_TOP_K } from './search.ts';
export { DEFAULT_VIEW_LIMIT, MAX_VIEW_LIMIT } from './view.ts';
export { DEFAULT_VISIBILITY_CACHE_BYTES } from './visibility-cache.ts';

/**
 * The context store over a repository (rows), a vector index and an embedder (DESIGN.md section 3).
 * Consistency without transactions: a document row is the gate of its chunks. An add of a new document writes its
 * chunk rows, then vectors, then the document row, each once (a document that exists is claimed first with a
 * `pending` row, write.ts); a delete moves documents to `deleting` first, then removes vectors, then chunk rows
 * (the document row goes with the cleanup). Search and view show a chunk only when it and its document are
 * `indexed`, and search checks every vector hit against the rows, so a stale vector never shows. A chunk found
 * visible is cached in this store (this process) for as long as its tenant's generation holds: every hide bumps it.
 */
export function createContextStore(deps: ContextStoreDeps): ContextStore {
  const cache = createVisibilityCache({ maxBytes: deps.visibilityCacheBytes ?? DEFAULT_VISIBILITY_CACHE_BYTES });
  const quiet = createQuietTenants();
  return {
    add: function add(principal, input) {
      return addDocuments(deps, principal, input);
    },
    search: function search(principal, input) {
      return searchContext(deps, cache, principal, input, quiet);
    },
    delete: function remove(principal, input) {
      return deleteContext(deps, principal, input);
    },
    view: function view(principal, input) {
      return viewContext(deps, principal, input);
    },
    viewDocs: function viewDocs(principal, input) {
      return viewDocuments(deps, principal, input);
    },
    originsOf: function origins(principal, contextIds) {
      return originsOf(deps, principal, contextIds);
    },
  };
}
