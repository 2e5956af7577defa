/**
 * The upstream response headers a caller sees (DESIGN.md section 4). Route A's caller chose the target, so it gets
 * what OpenAI clients read: the request id, processing time, rate limits and retry hints. Route B's upstream is the
 * operator's: only the retry hints, which a client needs to back off, cross over.
 */
const ROUTE_A_EXACT = new Set(['x-request-id', 'openai-processing-ms', 'retry-after', 'retry-after-ms']);
const ROUTE_B_EXACT = new Set(['retry-after', 'retry-after-ms']);

export type UpstreamOwner = 'caller' | 'operator';

/** The forwarded subset of `headers` (names in lower case; a repeated header's values joined as `Headers` would). */
export function forwardedHeaders(
  headers: Readonly<Record<string, string | string[] | undefined>> | undefined,
  owner: UpstreamOwner,
): Record<string, string> {
  const forwarded: Record<string, string> = {};
  if (!headers) return forwarded;
  const exact = owner === 'caller' ? ROUTE_A_EXACT : ROUTE_B_EXACT;
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    const key = name.toLowerCase();
    if (exact.has(key) || (owner === 'caller' && key.startsWith('x-ratelimit-'))) {
      forwarded[key] = Array.isArray(value) ? value.join(', ') : value;
    }
  }
  return forwarded;
}
