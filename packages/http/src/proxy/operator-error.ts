import { type RawCompletionResponse, readUpTo } from '@memgate/core';
import { forwardedHeaders } from './upstream-headers.ts';

/** An OpenAI error body is a few hundred bytes; only this much of the operator's is read. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** OpenAI's `type`/`code` values are identifiers (`rate_limit_exceeded`, `tokens`); anything else is not repeated. */
const IDENTIFIER = /^[a-z][a-z0-9_]{0,63}$/;

/** OpenAI's error type for a status, when the operator's upstream did not say. */
function typeOfStatus(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  return status >= 500 ? 'server_error' : 'invalid_request_error';
}

function identifierOr(value: unknown, fallback: string): string {
  return typeof value === 'string' && IDENTIFIER.test(value) ? value : fallback;
}

/**
 * Route B's answer to an error status of the operator's upstream (DESIGN.md section 4): the same status and OpenAI
 * type/code, a message of our own (the upstream's body may name the operator's organization, account or key), and
 * only the retry hints among its headers.
 */
export async function operatorUpstreamError(
  raw: Pick<RawCompletionResponse, 'status' | 'body' | 'headers'>,
  headers: Record<string, string>,
): Promise<Response> {
  let upstream: { type?: unknown; code?: unknown } = {};
  try {
    const parsed = JSON.parse((await readUpTo(raw.body, MAX_ERROR_BODY_BYTES)).text) as {
      error?: { type?: unknown; code?: unknown };
    };
    upstream = parsed.error ?? {};
  } catch {
    // Not JSON (or cut): the status alone says what happened.
  }
  const error = {
    message: `the default model's upstream answered with status ${raw.status}`,
    type: identifierOr(upstream.type, typeOfStatus(raw.status)),
    param: null,
    code: identifierOr(upstream.code, 'upstream_error'),
  };
  return new Response(JSON.stringify({ error }), {
    status: raw.status,
    headers: { ...headers, ...forwardedHeaders(raw.headers, 'operator'), 'content-type': 'application/json' },
  });
}
