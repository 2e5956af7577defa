/**
 * undici's own request, Agent and connector modules, the parts of undici memgate runs (functions/runtime/undici-lazy.ts
 * imports this module dynamically, so in a Lambda bundle it is a chunk of its own, read on the first upstream request).
 * This file only works bundled: `require` here is esbuild's (a bundled module), not Node's.
 */
export const undiciParts = {
  request: require('undici/lib/api/api-request.js'),
  Agent: require('undici/lib/dispatcher/agent.js'),
  buildConnector: require('undici/lib/core/connect.js'),
};
