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
export function fromZodError(error: ZodError, code = 'invalid_request'): MemgateError {
  const issue = error.issues[0];
  if (!issue) return new MemgateError('validation', code, 'request is not valid');
  const field = pathText(issue.path) || 'body';
  return new MemgateError('validation', code, `${field}: ${issue.message}`, { field });
}

/** The `defaultHook` for OpenAPIHono apps: validation failures throw, so the area's onError renders them. */
export function throwOnInvalid(result: { success: boolean; error?: unknown }): void {
  if (!result.success) throw fromZodError(result.error as ZodError);
}
