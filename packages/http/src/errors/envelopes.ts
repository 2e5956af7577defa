import { type ErrorKind, MemgateError } from '@memgate/core';
import { HTTPException } from 'hono/http-exception';

export type Area = 'context' | 'proxy' | 'chat' | 'mcp';

const STATUS: Record<ErrorKind, number> = {
  validation: 400,
  authentication: 401,
  invalid_user: 402,
  permission: 403,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  upstream_unavailable: 502,
  upstream_timeout: 504,
  internal: 500,
};

/** DESIGN.md section 3: the context store's `error` type, by kind. */
const CONTEXT_TYPE: Record<ErrorKind, string> = {
  validation: 'validation_error',
  authentication: 'authentication_error',
  invalid_user: 'invalid_user',
  permission: 'permission_error',
  not_found: 'not_found',
  method_not_allowed: 'method_not_allowed',
  payload_too_large: 'payload_too_large',
  unsupported_media_type: 'unsupported_media_type',
  upstream_unavailable: 'internal_error',
  upstream_timeout: 'internal_error',
  internal: 'internal_error',
};

/** DESIGN.md section 4: the proxy's OpenAI-style `error.type`, by kind. */
const PROXY_TYPE: Record<ErrorKind, string> = {
  validation: 'invalid_request_error',
  authentication: 'authentication_error',
  invalid_user: 'authentication_error',
  permission: 'permission_error',
  not_found: 'not_found_error',
  method_not_allowed: 'invalid_request_error',
  payload_too_large: 'invalid_request_error',
  unsupported_media_type: 'invalid_request_error',
  upstream_unavailable: 'server_error',
  upstream_timeout: 'server_error',
  internal: 'server_error',
};

export function statusOf(error: MemgateError): number {
  return STATUS[error.kind];
}

/** Maps anything thrown to a MemgateError whose message is safe to show; unknown errors become a bare 500. */
export function toMemgateError(error: unknown): MemgateError {
  if (error instanceof MemgateError) return error;
  if (error instanceof HTTPException) {
    if (error.status === 413)
      return new MemgateError('payload_too_large', 'payload_too_large', 'request body is larger than 6 MB');
    if (error.status === 400)
      return new MemgateError('validation', 'invalid_request', 'request body is not valid JSON');
    if (error.status === 401) return new MemgateError('authentication', 'invalid_token', 'authentication required');
  }
  return new MemgateError('internal', 'internal_error', 'internal server error', { cause: error });
}

/** The message a caller sees for `error`, the field named when the message does not name it. */
export function publicMessage(error: MemgateError): string {
  if (!error.field || error.message.includes(error.field)) return error.message;
  return `${error.field}: ${error.message}`;
}

/** Status and body of an error in one area's envelope (spec section 7). */
export function errorEnvelope(area: Area, error: MemgateError): { status: number; body: unknown } {
  const status = statusOf(error);
  const message = publicMessage(error);
  switch (area) {
    case 'context':
      return { status, body: { response: message, error: CONTEXT_TYPE[error.kind] } };
    case 'proxy':
      // OpenAI clients read `param` (the parameter at fault, else null) next to type and code.
      return {
        status,
        body: { error: { message, type: PROXY_TYPE[error.kind], param: error.field ?? null, code: error.code } },
      };
    case 'chat':
      return { status, body: { message } };
    case 'mcp':
      // Refused before any MCP message was read (token, size, path): a JSON-RPC error with no request id, the
      // shape the SDK's transport gives its own HTTP-level refusals. -32000 is JSON-RPC's "server error" range.
      return { status, body: { jsonrpc: '2.0', error: { code: -32000, message }, id: null } };
  }
}

/** The area a path belongs to, for errors raised before any area's app ran (404, body limit). */
export function areaOfPath(path: string): Area {
  if (path.startsWith('/api/v1/proxy')) return 'proxy';
  if (path.startsWith('/api/v1/chat')) return 'chat';
  if (path === '/mcp' || path.startsWith('/mcp/')) return 'mcp';
  return 'context';
}
