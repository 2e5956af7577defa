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

/** The base URL and key of a target path's part between the prefix and the endpoint, unchecked. */
function splitTarget(inner: string): { baseUrl: string; rawKey: string } {
  const cut = inner.lastIndexOf('/');
  let baseUrl = cut < 0 ? inner : inner.slice(0, cut);
  if (/%2f/i.test(baseUrl) || /^[a-z][a-z0-9+.-]*%3a/i.test(baseUrl)) baseUrl = decodeSegment(baseUrl);
  return {
    baseUrl: baseUrl.replace(/^([a-z][a-z0-9+.-]*):\/*/i, '$1://'),
    rawKey: cut < 0 ? '' : inner.slice(cut + 1),
  };
}

const isBaseUrl = (baseUrl: string) => /^[a-z][a-z0-9+.-]*:\/\/[^/]/i.test(baseUrl);

/** A raw proxy path to one model (`…/models/{id}`): the part before the endpoint, and the id as written. */
export interface ModelPath {
  inner: string;
  rawId: string;
}

/**
 * Reads a retrieve-model path: `default/models/{id}` or `{base URL}/{key}/models/{id}`. A model id may hold slashes
 * (`meta-llama/Llama-3-8B`, Gemini's `models/gemini-2.0-flash`), so the endpoint is the first `/models/` that a base
 * URL and a key come before; a base URL whose own path holds `/models/` must be percent-encoded. Undefined when the
 * path is not one.
 */
export function modelPathOf(rawPath: string): ModelPath | undefined {
  if (!rawPath.startsWith(PROXY_PREFIX)) return undefined;
  const marker = '/models/';
  for (let at = rawPath.indexOf(marker, PROXY_PREFIX.length); at >= 0; at = rawPath.indexOf(marker, at + 1)) {
    const inner = rawPath.slice(PROXY_PREFIX.length, at);
    const rawId = rawPath.slice(at + marker.length);
    if (rawId === '') return undefined;
    if (inner === 'default') return { inner, rawId };
    try {
      const { baseUrl, rawKey } = splitTarget(inner);
      if (rawKey !== '' && isBaseUrl(baseUrl)) return { inner, rawId };
    } catch {
      // not percent-encoding: not a base URL here
    }
  }
  return undefined;
}

/**
 * A target path's part between the prefix and its endpoint, and the endpoint as written (`chat/completions`,
 * `models/{id}`, …); undefined when the path ends in neither an endpoint nor a model.
 */
function targetPartsOf(rawPath: string): { inner: string; endpoint: string } | undefined {
  const endpoint = endpointOf(rawPath);
  if (endpoint !== undefined) {
    return { inner: rawPath.slice(PROXY_PREFIX.length, rawPath.length - endpoint.length - 1), endpoint };
  }
  const model = modelPathOf(rawPath);
  return model && { inner: model.inner, endpoint: `models/${model.rawId}` };
}

/**
 * Reads route A's target from the raw (undecoded) path: the last segment before the endpoint (/chat/completions,
 * /responses, /models, /models/{id}) is the key, the rest the base URL, written as is (`https://h/v1`), collapsed by a
 * client or proxy (`https:/h/v1`) or percent-encoded (`https%3A%2F%2Fh%2Fv1`). Messages never include the key.
 */
export function parseProxyPath(rawPath: string): ProxyTarget {
  const inner =
    targetPartsOf(rawPath)?.inner ?? rawPath.slice(PROXY_PREFIX.length, rawPath.length - 'chat/completions'.length - 1);
  if (inner === 'default') return { kind: 'default' };
  const { baseUrl, rawKey } = splitTarget(inner);
  const apiKey = decodeSegment(rawKey);
  if (apiKey === '' || !isBaseUrl(baseUrl)) {
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
  if (!rawPath.startsWith(PROXY_PREFIX)) return undefined;
  const parts = targetPartsOf(rawPath);
  if (!parts) return undefined;
  const { inner, endpoint } = parts;
  const cut = inner.lastIndexOf('/');
  const base = inner.slice(0, Math.max(cut, 0));
  if (!base.includes('/')) return undefined;
  return `${PROXY_PREFIX}${encodeURIComponent(base)}${inner.slice(cut)}/${endpoint}`;
}
