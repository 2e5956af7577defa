import { brotliDecompressSync } from 'node:zlib';
import { Scalar } from '@scalar/hono-api-reference';
import { Hono } from 'hono';
import { OPENAPI_PATH } from './document.ts';

/** Where the page loads the viewer from: this service, never a CDN (the service must work offline). */
const SCRIPT = 'scalar.js';

/** Scalar's browser bundle (`@scalar/api-reference`'s standalone build): its text, or its brotli-compressed bytes. */
export type ScalarScript = { text: string } | { brotli: Uint8Array<ArrayBuffer> };

export interface ScalarDocsOptions {
  /** The browser bundle, read once on first use. */
  script(): Promise<ScalarScript>;
}

const SCRIPT_HEADERS = {
  'content-type': 'text/javascript; charset=utf-8',
  'cache-control': 'public, max-age=86400',
  vary: 'accept-encoding',
};

/**
 * `/docs` with Scalar's API reference over the service's OpenAPI document. Reached by a deep import only, like MCP:
 * the `@memgate/http` barrel that every Lambda bundles stays free of it. A compressed bundle (the AWS docs function
 * ships it so, a fifth of its 4.3 MB) is sent as is to a browser that takes brotli, and expanded once for any other.
 */
export function createScalarDocs({ script }: ScalarDocsOptions): Hono {
  const docs = new Hono();
  let loaded: Promise<ScalarScript> | undefined;
  let expanded: string | undefined;
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
      // An empty icon: without one the browser asks for /favicon.ico, a 404 in the console on every visit.
      favicon: 'data:,',
    }),
  );
  docs.get(`/${SCRIPT}`, async function scalarScript(c) {
    loaded ??= script();
    const asset = await loaded;
    if ('text' in asset) return c.body(asset.text, 200, SCRIPT_HEADERS);
    if (/\bbr\b/.test(c.req.header('accept-encoding') ?? '')) {
      return c.body(asset.brotli, 200, { ...SCRIPT_HEADERS, 'content-encoding': 'br' });
    }
    expanded ??= brotliDecompressSync(asset.brotli).toString('utf8');
    return c.body(expanded, 200, SCRIPT_HEADERS);
  });
  return docs;
}
