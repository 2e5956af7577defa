import { readFile } from 'node:fs/promises';
import { apiDocument, OPENAPI_PATH, withServers } from '@memgate/http/docs/document';
import { createScalarDocs } from '@memgate/http/docs/scalar';
import { Hono } from 'hono';
import { SCALAR_SCRIPT_FILE } from './scalar-file.ts';

/**
 * The AWS docs function's app: the OpenAPI document of every route (built from the routes' definitions, with the
 * proxy's and the chat's function URLs as those paths' servers) and Scalar's page at /docs, its script read from
 * beside the bundle on first request (docs/DEPLOY.md says why it is not in a bucket).
 */
export function docsApp({ env = process.env }: { env?: Record<string, string | undefined> } = {}): Hono {
  const document = withServers(apiDocument(), { proxy: env.MEMGATE_PROXY_URL, chat: env.MEMGATE_CHAT_URL });
  const app = new Hono();
  app.get(OPENAPI_PATH, (c) => c.json(document));
  app.route(
    '/docs',
    createScalarDocs({
      script: async () => ({ brotli: await readFile(new URL(`./${SCALAR_SCRIPT_FILE}`, import.meta.url)) }),
    }),
  );
  return app;
}
