import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Hono } from 'hono';
import { OPENAPI_PATH, openApiDocumentOf } from './document.ts';
import { renderReferencePage } from './page.ts';

export { API_ROUTES, apiDocument, OPENAPI_PATH, type OpenApiDocument, openApiDocumentOf } from './document.ts';

/**
 * Serves the OpenAPI 3.1 document built from the routes' definitions, and at `/docs` a reference: `viewer` when
 * given (Scalar, `docs/scalar.ts`), else a plain page rendered from the document. Call it once every area is mounted.
 */
export function registerDocs(app: OpenAPIHono, viewer?: Hono): void {
  let document: ReturnType<typeof openApiDocumentOf> | undefined;
  const documentOf = () => {
    document ??= openApiDocumentOf(app);
    return document;
  };
  app.get(OPENAPI_PATH, (c) => c.json(documentOf()));
  if (viewer) {
    app.route('/docs', viewer);
    return;
  }
  let page: string | undefined;
  app.get('/docs', (c) => {
    page ??= renderReferencePage(documentOf());
    return c.html(page);
  });
}
