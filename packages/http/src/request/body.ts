import type { IncomingMessage } from 'node:http';
import { MemgateError } from '@memgate/core';
import type { Context } from 'hono';
import { bufferedBodyOf } from './buffered.ts';
import { nodeBindingsOf } from './node.ts';

/** DESIGN.md section 7: the 413 for a body over `maxBytes`, in every area's format. */
export function bodyTooLarge(maxBytes: number): MemgateError {
  return new MemgateError('payload_too_large', 'payload_too_large', `request body is larger than ${maxBytes} bytes`);
}

/** Reads a Node request's body as it arrives, refusing it (413) as soon as it passes `maxBytes`. */
function readNodeBody(incoming: IncomingMessage, maxBytes: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    if (incoming.readableEnded || incoming.destroyed) {
      reject(new Error('the request body was read already, or its connection is gone'));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.off('close', onClose);
    };
    function onData(chunk: Buffer) {
      size += chunk.length;
      if (size > maxBytes) {
        stop();
        // The rest is left unread: the adapter drains a little of it after the 413 and then closes the connection.
        incoming.pause();
        reject(bodyTooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    }
    function onEnd() {
      stop();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    }
    function onError(error: Error) {
      stop();
      reject(error);
    }
    function onClose() {
      stop();
      reject(new Error('the client closed the connection before the whole body arrived'));
    }
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
    incoming.on('close', onClose);
  });
}

/** Reads a WHATWG Request's body, refusing it (413) as soon as it passes `maxBytes` (at once when it is in memory). */
async function readWebBody(request: Request, maxBytes: number): Promise<Uint8Array> {
  const buffered = bufferedBodyOf(request);
  if (buffered) {
    if (buffered.length > maxBytes) throw bodyTooLarge(maxBytes);
    return buffered;
  }
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > maxBytes) throw bodyTooLarge(maxBytes);
    chunks.push(value);
  }
  // The same bytes as readNodeBody's: one chunk as it came, several joined.
  return chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks, size);
}

const bodies = new WeakMap<Request, Promise<Uint8Array>>();

/**
 * The request's body as bytes, read once (later calls get the same bytes) and refused with a 413 as soon as it
 * passes `maxBytes`. On the local server it is read straight from the Node request.
 */
export function readBodyBytes(c: Context, maxBytes: number): Promise<Uint8Array> {
  let read = bodies.get(c.req.raw);
  if (!read) {
    const node = nodeBindingsOf(c);
    read = node ? readNodeBody(node.incoming, maxBytes) : readWebBody(c.req.raw, maxBytes);
    // Whoever asked handles a failure; the copy kept here must not count as an unhandled rejection.
    read.catch(() => {});
    bodies.set(c.req.raw, read);
  }
  return read;
}

const UTF8 = new TextDecoder();

/** The body as text, decoded as `Request.text()` decodes it (UTF-8, a leading BOM dropped). */
export async function readBodyText(c: Context, maxBytes: number): Promise<string> {
  return UTF8.decode(await readBodyBytes(c, maxBytes));
}
