import { type OpenAPIHono, z } from '@hono/zod-openapi';
import { CONTEXT_SCOPES, CONTEXT_TYPES, type ContextStore } from '@memgate/core';
import { type AuthEnv, authenticate } from '../auth/index.ts';
import type { BaseDeps } from '../deps.ts';
import { jsonBody, limitBody, type PrepareBody } from '../errors/index.ts';
import { type ObjectSchema, refusingNull, withoutNulls } from '../errors/null-fields.ts';

// What every context route shares. Each route lives in its own module (add, search, delete, view) with its schemas,
// so that a Lambda function serving one route builds that route's schemas only (functions/runtime/context-app.ts).

export interface ContextAreaDeps {
  store: ContextStore;
}

export type ContextRouteDeps = BaseDeps & ContextAreaDeps;

/** Registers one context route (its `createRoute` definition and handler) on the area's app. */
export type ServeContextRoute = (app: OpenAPIHono<AuthEnv>, deps: ContextRouteDeps) => void;

// Request schemas describe what a client may send (both forms of `chained`/`modalities`); the handlers convert.

export const BooleanLike = z.union([z.boolean(), z.enum(['true', 'false'])], {
  error: 'must be true or false (or the text "true" or "false")',
});
/** An array of strings or one comma-separated string (`modalities`, `tags`). */
export const StringListLike = z.union([z.array(z.string()), z.string()], {
  error: 'must be an array of strings or a comma-separated string',
});
export const Scope = z.enum(CONTEXT_SCOPES);
export const ContextType = z.enum(CONTEXT_TYPES);

export const ContextError = z.object({ response: z.string(), error: z.string() }).openapi('ContextError');
export type ContextError = z.infer<typeof ContextError>;

export const json = <T>(schema: T, description: string) => ({
  content: { 'application/json': { schema } },
  description,
});
export const errors = {
  400: json(ContextError, 'invalid input; `response` names the field'),
  401: json(ContextError, 'missing, invalid or expired token'),
  403: json(ContextError, 'missing scope, or acting outside your user or organizations'),
  405: json(ContextError, "another method than the route's, before any token check; `Allow` names the route's"),
  413: json(ContextError, 'body over 6 MB'),
  500: json(ContextError, 'internal error'),
};
/** A route that reads a JSON body also refuses one declared as another type. */
export const bodyErrors = {
  ...errors,
  415: json(ContextError, 'a body declared as another type than JSON (none declared is read as JSON)'),
};
export const tags = ['context'];

/**
 * A field sent as null where its schema takes no null counts as left out (`withoutNulls`). A field whose schema takes
 * null (delete's `organization_id: null`, personal records only) keeps it. `items` does the same inside one list's
 * objects (add's documents).
 */
export function nullsLeftOut(schema: ObjectSchema, items?: { field: string; schema: ObjectSchema }) {
  const refused = refusingNull(schema);
  const refusedInItems = items ? refusingNull(items.schema) : new Set<string>();
  return async function leaveOutNulls(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const kept = withoutNulls(body, refused);
    const list = items ? kept[items.field] : undefined;
    if (!items || !Array.isArray(list)) return kept;
    const objects = list.map((item) =>
      item !== null && typeof item === 'object' && !Array.isArray(item) ? withoutNulls(item, refusedInItems) : item,
    );
    return { ...kept, [items.field]: objects };
  };
}

/**
 * Before the validator run the body limit, the token check and `jsonBody` (JSON, nesting depth, an object; then
 * `prepare`), so a bad token is a 401 before the body is read.
 */
export const withBody = (
  { verifier }: ContextRouteDeps,
  scope: 'context:write' | 'context:read' | 'context:delete',
  prepare?: PrepareBody,
) => [limitBody(), authenticate({ verifier, scope }), jsonBody(prepare ? { prepare } : {})];
