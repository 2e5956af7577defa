import { invalid } from '@memgate/core';

export const PROXY_PREFIX = '/api/v1/proxy/';

/** The OpenAI endpoints the proxy serves, by the path suffix a client appends to its base URL. */
export const PROXY_ENDPOINTS = {
  'chat/completions': 'POST',
  responses: 'POST',
  models: 'GET',
} as const;
export type ProxyEndpoint = keyof typeof PROXY_ENDPOINTS;

export type UpstreamTarget = { kind: 'upstream'; baseUrl: string; apiKey: string };
export type ProxyTarget = { kind: 'default' } | UpstreamTarget;

const malformedPath = () =>
  invalid(
    'the proxy path must be /api/v1/proxy/{base URL}/{target API key}/{chat/completions|responses|models}, with an absolute base URL',
    'proxyUrl',
  );

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
    throw malformedPath();
  }
  // A key an Authorization header cannot carry (a control character but tab, a character past U+00FF) is the
  // caller's mistake: a 400 here, not the call failing later as if the target were unreachable.
  if (/[^\t\x20-\x7e\x80-\xff]/.test(apiKey)) {
    throw invalid('holds characters an HTTP header cannot carry', 'target_api_key');
  }
  return { kind: 'upstream', baseUrl, apiKey };
}

/** Route A's target (its routes never match route B's `default` paths, so `default` here is a malformed path). */
export function parseUpstreamPath(rawPath: string): UpstreamTarget {
  const target = parseProxyPath(rawPath);
  if (target.kind === 'default') throw malformedPath();
  return target;
}

/**
 * Route A's target for a request to `url`: the path's base URL and key, with the request's query added to the base
 * URL's, so that it reaches the target as a client meant it (the OpenAI SDK's `defaultQuery`, Azure's api-version).
 */
export function upstreamTargetOf(url: string, rawPath: string): UpstreamTarget {
  const target = parseUpstreamPath(rawPath);
  const at = url.indexOf('?');
  if (at < 0 || at === url.length - 1) return target;
  const joiner = target.baseUrl.includes('?') ? '&' : '?';
  return { ...target, baseUrl: `${target.baseUrl}${joiner}${url.slice(at + 1)}` };
}

/**
 * Route A's raw path with a base URL that spans segments (`https://h/v1`, `https:/h/v1`) turned into one
 * percent-encoded segment, the form its routes match; undefined when there is nothing to turn (already one segment,
 * or not a target path). parseProxyPath reads both forms the same.
 */
export function withTargetAsOneSegment(rawPath: string): string | undefined {
  const endpoint = endpointOf(rawPath);
  if (!endpoint || !rawPath.startsWith(PROXY_PREFIX)) return undefined;
  const inner = rawPath.slice(PROXY_PREFIX.length, rawPath.length - endpoint.length - 1);
  const cut = inner.lastIndexOf('/');
  const base = inner.slice(0, Math.max(cut, 0));
  if (!base.includes('/')) return undefined;
  return `${PROXY_PREFIX}${encodeURIComponent(base)}${inner.slice(cut)}/${endpoint}`;
}
