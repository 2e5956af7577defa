import { createParser } from 'eventsource-parser';
import { request } from 'undici';

export interface StreamTiming {
  status: number;
  /** From sending the request to the response headers, ms. */
  headersMs: number;
  /** Arrival time (`performance.now()`) of each `data:` event, in order, [DONE] excluded. */
  arrivals: number[];
  /** The parsed JSON of each `data:` event, in order. */
  events: unknown[];
  started: number;
}

/**
 * POSTs a JSON body and reads the SSE response as it arrives, stamping each event with its arrival time.
 * `stopWhen` may end the read early (the connection is then destroyed, as a client that got what it wanted).
 */
export async function readEventStream(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  stopWhen?: (event: unknown) => boolean,
): Promise<StreamTiming> {
  const started = performance.now();
  const response = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  const headersMs = performance.now() - started;
  const arrivals: number[] = [];
  const events: unknown[] = [];
  let stop = false;
  const parser = createParser({
    onEvent(message) {
      if (stop || message.data === '[DONE]') return;
      const now = performance.now();
      let event: unknown = message.data;
      try {
        event = JSON.parse(message.data);
      } catch {
        // Keep the raw text.
      }
      arrivals.push(now);
      events.push(event);
      if (stopWhen?.(event)) stop = true;
    },
  });
  for await (const chunk of response.body) {
    parser.feed(Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk));
    if (stop) {
      response.body.destroy();
      break;
    }
  }
  return { status: response.statusCode, headersMs, arrivals, events, started };
}
