import { once } from 'node:events';
import type { AddressInfo, Server } from 'node:net';
import { serve } from '@hono/node-server';
import { createLexicalEmbedder, loadConfig, type ServiceInputs } from '@memgate/adapters';
import { createProxyServices } from '@memgate/adapters/services/proxy';
import type { AddResult, ContextStore, Principal, SearchHit, SearchInput } from '@memgate/core';
import { systemClock } from '@memgate/core';
import {
  createBackgroundWork,
  createProxyApp,
  createTokenVerifier,
  type Logger,
  type ProxyAreaDeps,
  requestLog,
  silentLogger,
} from '@memgate/http';
import { Hono } from 'hono';
import { TEST_SECRET } from '../support/tokens.ts';

/** A ContextStore double for proxy tests: search by shared words, records every add. */
export function createFakeContextStore(passages: { fileName: string; text: string; userId?: string }[] = []) {
  const added: { principal: Principal; input: Parameters<ContextStore['add']>[1] }[] = [];
  const searches: SearchInput[] = [];
  const words = (text: string) => new Set(text.toLowerCase().match(/[a-z0-9]{3,}/g) ?? []);
  const store: ContextStore = {
    async add(principal, input): Promise<AddResult> {
      added.push({ principal, input });
      return { contextIds: ['doc-1'], documents: [{ contextId: 'doc-1', fileName: 'x', chunks: 1 }] };
    },
    async search(principal, input): Promise<SearchHit[]> {
      searches.push(input);
      const query = words(input.query);
      return passages
        .filter((passage) => (passage.userId ?? principal.userId) === principal.userId)
        .map((passage, index) => {
          const own = words(passage.text);
          const shared = [...query].filter((word) => own.has(word)).length;
          return {
            contextId: `chunk-${index}`,
            contextData: passage.text,
            score: shared / Math.max(1, query.size),
            documentId: `doc-${index}`,
            fileName: passage.fileName,
            source: 'test',
          };
        })
        .filter((hit) => hit.score >= input.minimum_similarity_threshold)
        .sort((a, b) => b.score - a.score)
        .slice(0, input.top_k ?? 10);
    },
    delete: async () => {},
    view: async () => ({ items: [], nextCursor: null }),
    viewDocs: async () => ({ items: [], nextCursor: null }),
    // Every passage is the caller's own: an exchange is stored in the caller's records.
    originsOf: async () => ({ organizations: [], unknown: 0 }),
  };
  return { store, added, searches };
}

export interface ProxyHarness {
  url: string;
  background: ReturnType<typeof createBackgroundWork>;
  close(): Promise<void>;
}

/** The proxy area served on 127.0.0.1 (a real socket: the SDK, disconnects and keep-alives need one). */
export async function startProxy({
  env = {},
  contextStore,
  logger = silentLogger,
  keepAliveMs = 15_000,
  beforeMemoryWork,
}: {
  env?: Record<string, string>;
  contextStore: ContextStore;
  logger?: Logger;
  keepAliveMs?: number;
  beforeMemoryWork?: () => void;
}): Promise<ProxyHarness> {
  const config = loadConfig({ PROXY_ALLOW_PRIVATE_TARGETS: 'true', ...env });
  const inputs = { config, clock: systemClock } as unknown as ServiceInputs;
  const embedder = createLexicalEmbedder({ dimension: 512 });
  const background = createBackgroundWork((error) => logger.error('store failed', { error: String(error) }));
  const services = createProxyServices(inputs, { embedder, contextStore }, { keepAliveMs });
  const deps: ProxyAreaDeps = { ...services, background, ...(beforeMemoryWork ? { beforeMemoryWork } : {}) };
  const app = new Hono();
  app.use(requestLog(logger));
  const proxyApp = createProxyApp({
    ...deps,
    verifier: createTokenVerifier({ kind: 'hs256', secret: TEST_SECRET }),
    logger,
  });
  app.route('/', proxyApp);
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as unknown as Server;
  if (!server.listening) await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    background,
    async close() {
      (server as unknown as { closeAllConnections(): void }).closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
