// The context area's schemas, each in the module of the route that uses it (see common.ts).
export { AddBody, AddResponse, DocumentBody } from './add.ts';
export { BooleanLike, ContextError, ContextType, Scope } from './common.ts';
export { DeleteBody } from './delete.ts';
export { SearchBody, SearchResponse } from './search.ts';
export { ContextRecordView, ViewDocsResponse, ViewQuery, ViewResponse } from './view.ts';
