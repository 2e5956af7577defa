import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AuthEnv } from '../auth/index.ts';
import { serveAdd } from './add.ts';
import { createContextRoutesApp } from './app.ts';
import type { ContextRouteDeps } from './common.ts';
import { serveDelete } from './delete.ts';
import { serveSearch } from './search.ts';
import { serveView, serveViewDocs } from './view.ts';

export type { ContextAreaDeps } from './common.ts';

/** The context store's five routes (spec 4.1), as the local server mounts them. */
export function createContextApp(deps: ContextRouteDeps): OpenAPIHono<AuthEnv> {
  return createContextRoutesApp(deps, [serveAdd, serveSearch, serveDelete, serveView, serveViewDocs]);
}
