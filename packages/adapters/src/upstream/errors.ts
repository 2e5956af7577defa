import { MemgateError } from '@memgate/core';
import { findRefusal, refusedTarget } from '../ssrf/index.ts';

/** An upstream error status with its body, for callers of `complete`/`stream` (the proxy passes these through raw). */
export class UpstreamStatusError extends MemgateError {
  readonly status: number;
  readonly body: string;
  constructor(status: number, body: string) {
    super('upstream_unavailable', 'upstream_error', `upstream answered with status ${status}`);
    this.name = 'UpstreamStatusError';
    this.status = status;
    this.body = body;
  }
}

/**
 * Turns a failed fetch into the error a caller sees: a refused target 400, a timeout 504, anything else 502.
 * Never includes the URL (route A's base URL sits next to the target key) or the key.
 */
export function upstreamFailure(error: unknown, timedOut: boolean): unknown {
  // Already explained (a refused redirect, thrown inside the same try): keep its code and message.
  if (error instanceof MemgateError) return error;
  const refusal = findRefusal(error);
  if (refusal) return refusedTarget(refusal.message.replace(/^target refused: /, ''));
  if (timedOut) return new MemgateError('upstream_timeout', 'upstream_timeout', 'upstream did not answer in time');
  if (error instanceof Error && error.name === 'AbortError') return error;
  return new MemgateError('upstream_unavailable', 'upstream_unreachable', 'upstream is unreachable', {
    cause: error instanceof Error ? new Error(failureKind(error)) : undefined,
  });
}

/**
 * What the log says of a failed connection: its code (ECONNREFUSED, ENOTFOUND, UND_ERR_SOCKET...), or else its
 * name. Not its message, which names the host and port; the operator reads the code ("Error: Error" said nothing).
 */
function failureKind(error: Error): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,63}$/.test(code) ? code : error.name;
}

export function redirectRefused(status: number): MemgateError {
  return new MemgateError(
    'upstream_unavailable',
    'upstream_redirect',
    `upstream answered ${status}; redirects are not followed`,
  );
}
