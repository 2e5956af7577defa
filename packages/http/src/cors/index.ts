/** What a browser on another origin may send to, and read from, one area of the service. */
export interface CorsRule {
  allowMethods: string[];
  allowHeaders: string[];
  exposeHeaders: string[];
}

/**
 * The headers the OpenAI SDKs send with every request (platform, retry count, timeout). A browser asks the preflight
 * for them, so without them a browser app using the SDK (dangerouslyAllowBrowser) is refused before it starts.
 */
const OPENAI_SDK_HEADERS = [
  'x-stainless-arch',
  'x-stainless-lang',
  'x-stainless-os',
  'x-stainless-package-version',
  'x-stainless-retry-count',
  'x-stainless-runtime',
  'x-stainless-runtime-version',
  'x-stainless-timeout',
];

/**
 * CORS per area, any origin (callers send a bearer token, never cookies). The deployment sets them on API Gateway
 * and the function URLs (infra/), the local server answers them itself (packages/local/src/cors.ts).
 */
export const CORS_RULES = {
  context: { allowMethods: ['GET', 'POST'], allowHeaders: ['authorization', 'content-type'], exposeHeaders: [] },
  /** The proxy and the chat stream (one rule: they share the function URLs' settings). */
  streaming: {
    allowMethods: ['GET', 'POST'],
    allowHeaders: [
      'authorization',
      'content-type',
      'x-memgate-filter',
      'x-memgate-context',
      'x-memgate-store',
      ...OPENAI_SDK_HEADERS,
    ],
    // What the SDKs read (the request id, retry hints) and the proxy's reports.
    exposeHeaders: [
      'x-request-id',
      'retry-after',
      'retry-after-ms',
      'x-memgate-history-kept',
      'x-memgate-history-dropped',
      'x-memgate-context-injected',
      'x-memgate-tokens-saved',
    ],
  },
  mcp: {
    allowMethods: ['GET', 'POST', 'DELETE'],
    allowHeaders: ['authorization', 'content-type', 'accept', 'mcp-protocol-version'],
    exposeHeaders: ['www-authenticate'],
  },
} satisfies Record<string, CorsRule>;
