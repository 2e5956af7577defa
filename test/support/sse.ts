import { createParser } from 'eventsource-parser';

/** What an event stream carried: each `data:` payload and each comment, in order. */
export interface SseRead {
  data: string[];
  comments: string[];
}

/** Reads a whole SSE body with a real parser (eventsource-parser). */
export async function readSse(response: Response): Promise<SseRead> {
  const read: SseRead = { data: [], comments: [] };
  const parser = createParser({
    onEvent: (event) => read.data.push(event.data),
    onComment: (comment) => read.comments.push(comment.trim()),
  });
  const decoder = new TextDecoder();
  for await (const bytes of response.body as unknown as AsyncIterable<Uint8Array>) {
    parser.feed(decoder.decode(bytes, { stream: true }));
  }
  return read;
}

/** The JSON events before `[DONE]`; throws when the stream does not end with exactly one `[DONE]`. */
export function jsonEvents(read: SseRead): Record<string, unknown>[] {
  if (read.data.at(-1) !== '[DONE]' || read.data.indexOf('[DONE]') !== read.data.length - 1) {
    throw new Error(`stream did not end with one [DONE]: ${JSON.stringify(read.data)}`);
  }
  return read.data.slice(0, -1).map((data) => JSON.parse(data) as Record<string, unknown>);
}

/**
 * Reads an SSE body event by event: `next()` resolves with the next data payload or comment as it arrives,
 * so a test can act in the middle of a stream (disconnect, wait for a keep-alive).
 */
export function sseReader(response: Response) {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const queue: { kind: 'data' | 'comment'; value: string }[] = [];
  const parser = createParser({
    onEvent: (event) => queue.push({ kind: 'data', value: event.data }),
    onComment: (comment) => queue.push({ kind: 'comment', value: comment.trim() }),
  });
  const decoder = new TextDecoder();
  return {
    async next(): Promise<{ kind: 'data' | 'comment'; value: string } | undefined> {
      while (queue.length === 0) {
        const { done, value } = await reader.read();
        if (done) return undefined;
        parser.feed(decoder.decode(value, { stream: true }));
      }
      return queue.shift();
    },
    cancel: () => reader.cancel(),
  };
}

/** The `content` of the stream's last event (the metadata event of a chat answer). */
export function metadataOf(events: Record<string, unknown>[]): {
  chatId: string;
  title: string;
  replaySessionID: string;
} {
  const last = events.at(-1);
  if (last?.type !== 'metadata') throw new Error(`the last event is not metadata: ${JSON.stringify(last)}`);
  return last.content as { chatId: string; title: string; replaySessionID: string };
}

/** The `event:` names of a whole SSE body (the Responses API's named events), in order, with their parsed data. */
export function namedEvents(text: string): { event: string; data: Record<string, unknown> }[] {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('event: '))
    .map((block) => {
      const [eventLine, dataLine] = block.split('\n');
      return { event: eventLine?.slice(7) ?? '', data: JSON.parse(dataLine?.slice(6) ?? '{}') };
    });
}
