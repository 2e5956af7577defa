import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { FetchLike } from '@memgate/adapters/http-retry/index';

/**
 * A `fetch` for small JSON APIs (Pinecone's data plane) over node:http(s). Node's global fetch costs a cold start
 * ~30 ms of CPU on its first call (its HTTP parser is WebAssembly compiled on first use, plus the fetch machinery);
 * node:http parses natively. Connections are kept alive across invocations of the warm function. Supports what the
 * Pinecone client sends: a method, string headers and a string body; the response body is buffered.
 */
const agents = { 'http:': new HttpAgent({ keepAlive: true }), 'https:': new HttpsAgent({ keepAlive: true }) };

export const nodeFetch: FetchLike = (input, init = {}) =>
  new Promise((resolve, reject) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      reject(new TypeError(`unsupported protocol ${url.protocol}`));
      return;
    }
    if (init.body != null && typeof init.body !== 'string') {
      reject(new TypeError('nodeFetch sends string bodies only'));
      return;
    }
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const request = send(
      url,
      {
        method: init.method ?? 'GET',
        headers: Object.fromEntries(new Headers(init.headers)),
        agent: agents[url.protocol],
        ...(init.signal ? { signal: init.signal } : {}),
      },
      (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
              headers.append(name, item);
            }
          }
          const status = response.statusCode ?? 500;
          const empty = status === 204 || status === 304;
          resolve(new Response(empty ? null : Buffer.concat(chunks), { status, headers }));
        });
      },
    );
    request.on('error', reject);
    request.end(init.body ?? undefined);
  });
