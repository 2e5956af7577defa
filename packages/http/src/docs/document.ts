import { OpenAPIHono } from '@hono/zod-openapi';
import { chatRoutes } from '../chat/routes.ts';
import { contextRoutes } from '../context/routes.ts';
import { proxyRoutes } from '../proxy/routes.ts';

export const OPENAPI_PATH = '/api/v1/openapi.json';

const CONFIG = {
  openapi: '3.1.0',
  info: {
    title: 'memgate API',
    version: '1.0.0',
    description:
      'Context store, OpenAI-compatible completion proxy and streaming chat. Every endpoint needs a bearer JWT (on the local server: `npm run token -- --user alice --orgs acme`): `sub` the user id, `orgs` an array of organization ids (or `org_id`, one id), `scope` space-separated scopes. A token whose `orgs` or `org_id` has another form (`orgs` as a string, say) is refused with 401.',
  },
  // The host that serves the document (relative: the local server, the AWS API). Without a server the page's code
  // samples had no host (`curl /api/v1/context/add`); the proxy's and the chat's paths name their own on AWS.
  servers: [{ url: '/' }],
  security: [{ bearerAuth: [] }],
};

export type OpenApiDocument = ReturnType<OpenAPIHono['getOpenAPI31Document']>;

/** Every route the HTTP API serves, area by area (what the areas' apps declare with `app.openapi`). */
export const API_ROUTES = [...contextRoutes, ...proxyRoutes, ...chatRoutes];

/** The OpenAPI 3.1 document of the routes `app` declared. */
export function openApiDocumentOf(app: OpenAPIHono): OpenApiDocument {
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
  });
  return app.getOpenAPI31Document(CONFIG);
}

/** The document of every route, for a runtime that serves the docs but not the routes (the AWS docs function). */
export function apiDocument(): OpenApiDocument {
  const app = new OpenAPIHono();
  for (const route of API_ROUTES) app.openAPIRegistry.registerPath(route);
  return openApiDocumentOf(app);
}

/** Where an area is served when it is not beside the docs (on AWS the proxy and the chat have function URLs). */
export interface AreaServers {
  proxy?: string | undefined;
  chat?: string | undefined;
}

const AREA_PREFIXES = { proxy: '/api/v1/proxy/', chat: '/api/v1/chat/' } as const;

/** `document` with each path of an area that lives elsewhere naming its server, so "try it" calls the right host. */
export function withServers(document: OpenApiDocument, servers: AreaServers): OpenApiDocument {
  const paths = Object.fromEntries(
    Object.entries(document.paths ?? {}).map(([path, item]) => {
      const area = (Object.keys(AREA_PREFIXES) as (keyof AreaServers)[]).find((name) =>
        path.startsWith(AREA_PREFIXES[name]),
      );
      const url = area ? servers[area]?.replace(/\/+$/, '') : undefined;
      return [path, url ? { ...item, servers: [{ url, description: `the ${area} function URL` }] } : item];
    }),
  );
  return { ...document, paths };
}
