import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Hono } from 'hono';
import { renderReferencePage } from './page.ts';

export const OPENAPI_PATH = '/api/v1/openapi.json';
const INFO = {
  title: 'memgate API',
  version: '1.0.0',
  description:
    'Context store, OpenAI-compatible completion proxy and streaming chat. Every endpoint needs a bearer JWT.',
};

/**
 * Serves the OpenAPI 3.1 document built from the routes' zod schemas, and at `/docs` a reference: `viewer` when given
 * (the local server's Scalar, `docs/scalar.ts`), else a plain page rendered from the document.
 */
export function registerDocs(app: OpenAPIHono, viewer?: Hono): void {
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
  });
  const config = { openapi: '3.1.0', info: INFO, security: [{ bearerAuth: [] }] };
  app.doc31(OPENAPI_PATH, config);
  if (viewer) {
    app.route('/docs', viewer);
    return;
  }
  let page: string | undefined;
  app.get('/docs', (c) => {
    page ??= renderReferencePage(app.getOpenAPI31Document(config) as unknown as Record<string, unknown>);
    return c.html(page);
  });
}
