import { type ContextStore, MemgateError, systemClock } from '@memgate/core';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/index.ts';
import { createLexicalEmbedder } from '../embedders/lexical/index.ts';
import type { ServiceInputs } from './index.ts';
import { createProxyServices } from './proxy.ts';

const shared = { embedder: createLexicalEmbedder({ dimension: 64 }), contextStore: {} as ContextStore };

function servicesFor(env: Record<string, string>) {
  const inputs = { config: loadConfig(env), clock: systemClock } as unknown as ServiceInputs;
  return createProxyServices(inputs, shared);
}

function refusal(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('operator upstreams are configuration; route A targets are caller input (DESIGN.md section 4)', () => {
  it('starts with a private http default model while PROXY_ALLOW_PRIVATE_TARGETS stays off', () => {
    const env = { DEFAULT_MODEL_BASE_URL: 'http://10.0.0.5:8000/v1', EMBEDDINGS_BASE_URL: 'http://192.168.1.9/v1' };
    expect(loadConfig(env).PROXY_ALLOW_PRIVATE_TARGETS).toBe(false);
    expect(servicesFor(env).defaultModel.id).toBe('memgate/default');
  });

  it("keeps route A's SSRF rules in that configuration", () => {
    const services = servicesFor({ DEFAULT_MODEL_BASE_URL: 'http://127.0.0.1:8000/v1' });
    for (const target of ['http://127.0.0.1:8000/v1', 'https://127.0.0.1:8000/v1', 'https://10.0.0.5/v1']) {
      const error = refusal(() => services.upstreamFor(target, 'sk-target'));
      expect(error, target).toBeInstanceOf(MemgateError);
      expect(error, target).toMatchObject({ code: 'invalid_target' });
    }
    expect(() => services.upstreamFor('https://api.example.com/v1', 'sk-target')).not.toThrow();
  });

  it('refuses an unusable operator URL at start-up, naming its variable', () => {
    expect(() => loadConfig({ DEFAULT_MODEL_BASE_URL: 'ftp://10.0.0.5/v1' })).toThrow(/DEFAULT_MODEL_BASE_URL/);
    expect(() => loadConfig({ DEFAULT_MODEL_BASE_URL: 'http://u:p@10.0.0.5/v1' })).toThrow(/credentials/);
    expect(() => loadConfig({ EMBEDDINGS: 'openai', EMBEDDINGS_BASE_URL: 'not a url' })).toThrow(/EMBEDDINGS_BASE_URL/);
  });
});
