import { invalid } from '@memgate/core';

export const PROXY_PREFIX = '/api/v1/proxy/';

/** The OpenAI endpoints the proxy serves, by the path suffix a client appends to its base URL. */
export const PROXY_ENDPOINTS = {
  'chat/completions': 'POST',
  responses: 'POST',
  models: 'GET',
} as const;
export type ProxyEndpoint = keyof typeof PROXY_ENDPOINTS;

export type ProxyTarget = { kind: 'default' } | { kind: 'upstream'; baseUrl: string; apiKey: string };

/** The endpoint a raw proxy path ends with, or undefined (no such proxy route). */
export function endpointOf(rawPath: string): ProxyEndpoint | undefined {
  return (Object.keys(PROXY_ENDPOINTS) as ProxyEndpoint[]).find((endpoint) => rawPath.endsWith(`/${endpoint}`));
}

function decodeSegment(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw invalid('the proxy path is not valid percent-encoding', 'proxyUrl');
  }
}

/**
 * Reads route A's target from the raw (undecoded) path: the last segment before the endpoint (/chat/completions,
 * /responses, /models) is the key, the rest the base URL, written as is (`https://h/v1`), collapsed by a client or
 * proxy (`https:/h/v1`) or percent-encoded (`https%3A%2F%2Fh%2Fv1`). Messages never include the key.
 */
export function parseProxyPath(rawPath: string): ProxyTarget {
  const suffix = endpointOf(rawPath) ?? 'chat/completions';
  const inner = rawPath.slice(PROXY_PREFIX.length, rawPath.length - suffix.length - 1);
  if (inner === 'default') return { kind: 'default' };
  const cut = inner.lastIndexOf('/');
  const apiKey = cut < 0 ? '' : decodeSegment(inner.slice(cut + 1));
  let baseUrl = cut < 0 ? inner : inner.slice(0, cut);
  if (/%2f/i.test(baseUrl) || /^[a-z][a-z0-9+.-]*%3a/i.test(baseUrl)) baseUrl = decodeSegment(baseUrl);
  baseUrl = baseUrl.replace(/^([a-z][a-z0-9+.-]*):\/*/i, '$1://');
  if (apiKey === '' || !/^[a-z][a-z0-9+.-]*:\/\/[^/]/i.test(baseUrl)) {
    throw invalid(
      'the proxy path must be /api/v1/proxy/{base URL}/{target API key}/{chat/completions|responses|models}, with an absolute base URL',
      'proxyUrl',
    );
  }
  return { kind: 'upstream', baseUrl, apiKey };
}
