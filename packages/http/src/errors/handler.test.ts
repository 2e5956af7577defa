import { MemgateError } from '@memgate/core';
import { describe, expect, it } from 'vitest';
import { createJsonLogger } from '../observability/index.ts';
import { logFailure } from './handler.ts';

function logged(thrown: unknown, error: MemgateError): Record<string, unknown> {
  const lines: Record<string, unknown>[] = [];
  const logger = createJsonLogger({ level: 'debug', sink: (line) => lines.push(JSON.parse(line)) });
  logFailure(logger, thrown, error);
  return lines[0] as Record<string, unknown>;
}

describe('logFailure (the log line of a 5xx)', () => {
  it('names the cause of a failure, redacted', () => {
    const cause = new Error('connect ECONNREFUSED with key sk-proj-1234567890abcdef');
    const error = new MemgateError('internal', 'internal_error', 'Something went wrong', { cause });
    const line = logged(error, error);
    expect(line).toMatchObject({ msg: 'request failed', code: 'internal_error' });
    expect(line.error).toContain('ECONNREFUSED');
    expect(JSON.stringify(line)).not.toContain('sk-proj-1234567890abcdef');
  });

  it('says nothing of a cause when a failure raised on purpose has none', () => {
    const error = new MemgateError(
      'upstream_unavailable',
      'upstream_response_too_large',
      'The upstream answer is too large',
    );
    const line = logged(error, error);
    expect(line).toMatchObject({ code: 'upstream_response_too_large' });
    expect(line).not.toHaveProperty('error');
    expect(JSON.stringify(line)).not.toContain('undefined');
  });
});
