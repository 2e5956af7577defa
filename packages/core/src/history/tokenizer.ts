import { createRequire } from 'node:module';

type Tokenizer = Pick<typeof import('gpt-tokenizer'), 'countTokens' | 'encode' | 'decode'>;

let loaded: Tokenizer | undefined;

/**
 * gpt-tokenizer's o200k encoder, loaded on its first use instead of at import: building its table costs a process
 * ~50 MB of RSS (V8 heap grown to ~60 MB while it builds), which a process that never counts tokens (the local
 * server until its first proxied or chat request; a search, an add) has no use for. Synchronous, as counting is.
 * The Lambda bundles replace this module with functions/runtime/tokenizer.ts (scripts/build-plugins.ts), which
 * builds the same encoder on first use from a table shipped beside the bundle.
 */
function tokenizer(): Tokenizer {
  loaded ??= createRequire(import.meta.url)('gpt-tokenizer') as Tokenizer;
  return loaded;
}

/**
 * Builds the encoder now. For a long-running server: building it is ~0.2-0.8 s of one core that blocks the event
 * loop, so a server does it before it listens rather than inside its first request that counts tokens (where every
 * request in flight would wait for it: test/security/freezes.test.ts).
 */
export function loadTokenizer(): void {
  tokenizer();
}

export const countTokens: Tokenizer['countTokens'] = (...args) => tokenizer().countTokens(...args);
export const encode: Tokenizer['encode'] = (...args) => tokenizer().encode(...args);
export const decode: Tokenizer['decode'] = (...args) => tokenizer().decode(...args);
