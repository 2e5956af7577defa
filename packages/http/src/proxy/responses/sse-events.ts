const encoder = new TextEncoder();

/** Headers of a Responses event stream (as the chat completions stream). */
export const SSE_RESPONSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};

/** One Responses API event: `event: <type>` and its JSON, as OpenAI sends them. */
export function sseEvent(event: { type: string; [field: string]: unknown }): Uint8Array {
  return encoder.encode(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
}
