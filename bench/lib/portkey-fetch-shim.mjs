// Preloaded into the @portkey-ai/gateway process by bench/lib/portkey.ts (see bench/README.md, "Portkey").
// Portkey 1.15 wraps a streamed upstream response as `new Response(body, upstreamResponse)` and then appends headers
// to it. Under @hono/node-server 1.19 (its Node runtime), that wrapper shares the upstream fetch response's Headers,
// which fetch makes immutable, so every streamed request fails with 500 "TypeError: immutable". Giving upstream
// responses a fresh, mutable Headers object is the smallest change that lets the peer stream; it costs one object
// copy per request and applies to streamed and non-streamed requests alike.
const upstreamFetch = globalThis.fetch;
globalThis.fetch = async (...args) => {
  const response = await upstreamFetch(...args);
  return new Response(response.body, {
    status: response.status,
    statusText: response.statusText,
    headers: new Headers(response.headers),
  });
};
