import { describe, expect, it } from 'vitest';
import { LEXICAL_HISTORY_RELEVANCE_FLOOR, LEXICAL_RELEVANCE_FLOOR, loadConfig } from './index.ts';

describe('loadConfig', () => {
  // First in the file (a fresh module: the schema has not been parsed yet). zod compiles an object schema's fast path
  // (generated code, through Function) on its first parse; configuration is parsed once per process, where that
  // compiling costs a cold start more than the one parse saves (import of context-view, 566 -> 548 M instructions).
  it('parses without compiling any code', () => {
    const compile = globalThis.Function;
    let compiled = 0;
    globalThis.Function = new Proxy(compile, {
      construct(target, args) {
        compiled += 1;
        return Reflect.construct(target, args);
      },
    });
    try {
      expect(loadConfig({ PORT: '9000' }).PORT).toBe(9000);
      expect(() => loadConfig({ PORT: 'nine' })).toThrow(/PORT/);
    } finally {
      globalThis.Function = compile;
    }
    expect(compiled).toBe(0);
  });

  it('defaults to the embedded local mode', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ PORT: 8787, DATA_DIR: '.data', VECTOR_STORE: 'local', EMBEDDINGS: 'local' });
  });

  it('weighs the lexical match by the embedder unless HYBRID_LEXICAL_WEIGHT says otherwise', () => {
    expect(loadConfig({})).toMatchObject({
      HYBRID_LEXICAL_WEIGHT: 0.8,
      HYBRID_NEIGHBOUR_BEFORE: 0.45,
      HYBRID_NEIGHBOUR_AFTER: 0.15,
      HYBRID_NEIGHBOUR_SPAN: 2,
    });
    expect(loadConfig({ EMBEDDINGS: 'openai', EMBEDDINGS_BASE_URL: 'http://e' }).HYBRID_LEXICAL_WEIGHT).toBe(0.3);
    expect(loadConfig({ HYBRID_LEXICAL_WEIGHT: '0' }).HYBRID_LEXICAL_WEIGHT).toBe(0);
    expect(() => loadConfig({ HYBRID_LEXICAL_WEIGHT: '1.2' })).toThrow(/HYBRID_LEXICAL_WEIGHT/);
    expect(() => loadConfig({ HYBRID_NEIGHBOUR_SPAN: '1.5' })).toThrow(/HYBRID_NEIGHBOUR_SPAN/);
  });

  it('scales matches spoken by no one a query names by HYBRID_SPEAKER_FACTOR (0.6, 1 turns it off)', () => {
    expect(loadConfig({}).HYBRID_SPEAKER_FACTOR).toBe(0.6);
    expect(loadConfig({ HYBRID_SPEAKER_FACTOR: '1' }).HYBRID_SPEAKER_FACTOR).toBe(1);
    expect(() => loadConfig({ HYBRID_SPEAKER_FACTOR: '-0.1' })).toThrow(/HYBRID_SPEAKER_FACTOR/);
  });

  it('weighs both sides alike with HYBRID_NEIGHBOUR_WEIGHT, unless a side is set on its own', () => {
    expect(loadConfig({ HYBRID_NEIGHBOUR_WEIGHT: '0' })).toMatchObject({
      HYBRID_NEIGHBOUR_BEFORE: 0,
      HYBRID_NEIGHBOUR_AFTER: 0,
    });
    expect(loadConfig({ HYBRID_NEIGHBOUR_WEIGHT: '0.3', HYBRID_NEIGHBOUR_AFTER: '0.1' })).toMatchObject({
      HYBRID_NEIGHBOUR_BEFORE: 0.3,
      HYBRID_NEIGHBOUR_AFTER: 0.1,
    });
    expect(() => loadConfig({ HYBRID_NEIGHBOUR_BEFORE: '-0.1' })).toThrow(/HYBRID_NEIGHBOUR_BEFORE/);
  });

  it('names the variable of a bad value', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ PROXY_CONTEXT_MIN_SIMILARITY: '1.5' })).toThrow(/PROXY_CONTEXT_MIN_SIMILARITY/);
    expect(() => loadConfig({ VECTOR_STORE: 'pinecone' })).toThrow(/PINECONE_API_KEY/);
  });

  it('refuses an AUTH_JWT_SECRET under 32 bytes, naming the variable and not the value', () => {
    const refusal = (() => {
      try {
        loadConfig({ AUTH_JWT_SECRET: 'short-but-secret' });
      } catch (error) {
        return String(error);
      }
      return 'accepted';
    })();
    expect(refusal).toMatch(/AUTH_JWT_SECRET: must be at least 32 bytes/);
    expect(refusal).not.toContain('short-but-secret');
    // Bytes, not characters: 11 three-byte characters are 33 bytes.
    expect(loadConfig({ AUTH_JWT_SECRET: '€'.repeat(11) }).AUTH_JWT_SECRET).toBe('€'.repeat(11));
    expect(() => loadConfig({ AUTH_JWT_SECRET: 'x'.repeat(31) })).toThrow(/AUTH_JWT_SECRET/);
    expect(loadConfig({ AUTH_JWT_SECRET: 'x'.repeat(32) }).AUTH_JWT_SECRET).toBe('x'.repeat(32));
    // Unset (or blank) still means the random secret kept in DATA_DIR.
    expect(loadConfig({ AUTH_JWT_SECRET: ' ' }).AUTH_JWT_SECRET).toBeUndefined();
  });

  it("sets the similarity floors to the embedder's scale unless they are given", () => {
    expect(loadConfig({})).toMatchObject({
      PROXY_CONTEXT_MIN_SIMILARITY: LEXICAL_RELEVANCE_FLOOR,
      PROXY_HISTORY_MIN_SIMILARITY: LEXICAL_HISTORY_RELEVANCE_FLOOR,
    });
    const neural = loadConfig({ EMBEDDINGS: 'openai', EMBEDDINGS_BASE_URL: 'https://api.example.com/v1' });
    expect(neural).toMatchObject({ PROXY_CONTEXT_MIN_SIMILARITY: 0.25, PROXY_HISTORY_MIN_SIMILARITY: 0.2 });
    const given = loadConfig({ PROXY_CONTEXT_MIN_SIMILARITY: '0.4', PROXY_HISTORY_MIN_SIMILARITY: '0' });
    expect(given).toMatchObject({ PROXY_CONTEXT_MIN_SIMILARITY: 0.4, PROXY_HISTORY_MIN_SIMILARITY: 0 });
  });
});
