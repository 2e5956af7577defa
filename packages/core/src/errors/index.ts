/** What went wrong, in terms a caller can act on. Each HTTP area maps a kind to its own status and envelope. */
export type ErrorKind =
  | 'validation'
  | 'authentication'
  | 'invalid_user'
  | 'permission'
  | 'not_found'
  | 'method_not_allowed'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'upstream_unavailable'
  | 'upstream_timeout'
  | 'internal';

/**
 * The one error class whose message may reach a caller. `code` is stable and machine-readable;
 * the message must never contain a secret (token, key) or an internal detail of a 500.
 */
export class MemgateError extends Error {
  readonly kind: ErrorKind;
  readonly code: string;
  /** Optional field path the error is about (validation), e.g. "documents[0].content". */
  readonly field: string | undefined;

  constructor(kind: ErrorKind, code: string, message: string, options: { field?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'MemgateError';
    this.kind = kind;
    this.code = code;
    this.field = options.field;
  }
}

/** Shorthand for the most common case: the caller sent something invalid. */
export function invalid(message: string, field?: string, code = 'invalid_request'): MemgateError {
  return new MemgateError('validation', code, message, field === undefined ? {} : { field });
}

/** The caller lacks a scope or tries to act on something not theirs. */
export function forbidden(message: string, code = 'insufficient_scope'): MemgateError {
  return new MemgateError('permission', code, message);
}

/** True for errors whose message is safe to show to a caller. */
export function isMemgateError(error: unknown): error is MemgateError {
  return error instanceof MemgateError;
}
