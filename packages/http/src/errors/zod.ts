import { MemgateError } from '@memgate/core';
import type { ZodError } from 'zod';

function pathText(path: readonly PropertyKey[]): string {
  let text = '';
  for (const part of path) {
    text += typeof part === 'number' ? `[${part}]` : text === '' ? String(part) : `.${String(part)}`;
  }
  return text;
}

/** Turns the first zod issue into a 400 that names the field, e.g. "temperature: must be at most 2". */
export function fromZodError(error: Pick<ZodError, 'issues'>, code = 'invalid_request'): MemgateError {
  const issue = error.issues[0];
  if (!issue) return new MemgateError('validation', code, 'request is not valid');
  const field = pathText(issue.path) || 'body';
  // zod words a missing field as a wrong type ("Invalid input: expected string, received undefined").
  const missing = issue.code === 'invalid_type' && issue.message.endsWith('received undefined');
  return new MemgateError('validation', code, `${field}: ${missing ? 'is required' : issue.message}`, { field });
}

/** What `@hono/zod-openapi` hands a validation hook (the parts read here). */
export interface ValidationResult {
  success: boolean;
  error?: Pick<ZodError, 'issues'>;
}

/**
 * A validation hook for `@hono/zod-openapi` routes: a failure throws the first issue as a 400 naming the field, so
 * the area's `onError` renders it in the area's format. `listField` names the field whose problems get the code
 * `invalid_messages` (the proxy's `messages`, or `input` on the Responses API); everything else is `invalid_request`.
 */
export function rejectInvalid({ listField }: { listField?: string } = {}) {
  // `undefined`, not void: the library reads a hook's result as the response to send instead (none here).
  return function throwOnInvalidRequest(result: ValidationResult): undefined {
    if (result.success || !result.error) return undefined;
    const list = listField !== undefined && result.error.issues[0]?.path[0] === listField;
    throw fromZodError(result.error, list ? 'invalid_messages' : 'invalid_request');
  };
}

/** The `defaultHook` for OpenAPIHono apps: validation failures throw, so the area's onError renders them. */
export const throwOnInvalid = rejectInvalid();
