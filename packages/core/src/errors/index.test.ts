import { describe, expect, it } from 'vitest';
import { invalid, MemgateError } from './index.ts';

describe('MemgateError', () => {
  it('carries kind, code and field for the error envelopes', () => {
    const error = invalid('query must not be empty', 'query');
    expect(error).toBeInstanceOf(MemgateError);
    expect(error.kind).toBe('validation');
    expect(error.code).toBe('invalid_request');
    expect(error.field).toBe('query');
    expect(error.message).toBe('query must not be empty');
  });
});
