import { Scalar } from '@scalar/hono-api-reference';
import { Hono } from 'hono';
import { OPENAPI_PATH } from './document.ts';

/** Where the page loads the viewer from: this service, never a CDN (the local server must work offline). */
const SCRIPT = 'scalar.js';

export interface ScalarDocsOptions {
  /** The text of Scalar's browser bundle (`@scalar/api-reference`'s standalone build), read once on first use. */
  script(): Promise<string>;
}

/**
 * `/docs` with Scalar's API reference over the service's OpenAPI document. Reached by a deep import only, like MCP:
 * the `@memgate/http` barrel that every Lambda bundles stays free of it.
 */
export function createScalarDocs({ script }: ScalarDocsOptions): Hono {
  const docs = new Hono();
  let text: Promise<string> | undefined;
  docs.get(
    '/',
    Scalar({
      url: OPENAPI_PATH,
      pageTitle: 'memgate API',
      cdn: `/docs/${SCRIPT}`,
      // The default fonts come from Scalar's servers; the system's serve offline.
      withDefaultFonts: false,
      // Every operation in view at once; none of Scalar's hosted services (AI agent, MCP generator, telemetry).
      defaultOpenAllTags: true,
      agent: { disabled: true },
      mcp: { disabled: true },
      showDeveloperTools: 'never',
      telemetry: false,
    }),
  );
  docs.get(`/${SCRIPT}`, async function scalarScript(c) {
    text ??= script();
    return c.body(await text, 200, {
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'public, max-age=86400',
    });
  });
  return docs;
}
