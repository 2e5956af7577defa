import { once } from 'node:events';
import type { AddressInfo, Server } from 'node:net';
import { serve } from '@hono/node-server';
import { createServices, loadConfig, type ServiceInputs } from '@memgate/adapters';
import { systemClock } from '@memgate/core';
import { type AppDeps, createApp, createBackgroundWork, createTokenVerifier, silentLogger } from '@memgate/http';
import type { Hono } from 'hono';
import { createTestTable } from '../support/dynamo.ts';
import { createMemoryIndex } from '../support/memory-ports.ts';
import { TEST_SECRET, tokenFor } from '../support/tokens.ts';
import { startUpstreamStub, type UpstreamStub } from '../support/upstream-stub.ts';

/** What the client matrix stores before asking: each client must answer from it on route B. */
export const HANDBOOK =
  'The Lisbon office opens at 8:30 on weekdays. Parking permits are issued by the front desk on level 2. ' +
  'Expense reports are due on the fifth working day of each month.';

export interface ClientMatrixServer {
  /** The service's own URL. */
  url: string;
  /** Route B's base URL: what a client passes as baseURL for the default model. */
  defaultBaseUrl: string;
  /** Route A's base URL with the stub upstream as target. */
  targetBaseUrl: string;
  /** The caller's service token (the client's apiKey). */
  token: string;
  stub: UpstreamStub;
  idle(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The whole service as the local server composes it (DynamoDB Local, the lexical embedder, an exact vector index,
 * the extractive responder as the default model) on a real port, with a handbook stored for the caller, and a stub
 * OpenAI upstream as route A's target.
 */
export async function startClientMatrixServer({ docs }: { docs?: Hono } = {}): Promise<ClientMatrixServer> {
  const table = await createTestTable('clients');
  const stub = await startUpstreamStub();
  const inputs: ServiceInputs = {
    config: loadConfig({ TABLE_NAME: table.tableName, PROXY_ALLOW_PRIVATE_TARGETS: 'true' }),
    documentClient: table.documentClient,
    tableName: table.tableName,
    vectorIndex: createMemoryIndex().index,
    clock: systemClock,
    log: () => {},
  };
  const services = createServices(inputs);
  const background = createBackgroundWork((error) => {
    throw error;
  });
  const app = createApp({
    verifier: createTokenVerifier({ kind: 'hs256', secret: TEST_SECRET }),
    logger: silentLogger,
    ...services,
    proxy: { ...services.proxy, background },
    ...(docs ? { docs } : {}),
  } as AppDeps);
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as unknown as Server;
  if (!server.listening) await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const token = await tokenFor('mia');
  const added = await fetch(`${url}/api/v1/context/add`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ documents: [{ content: HANDBOOK, fileName: 'handbook.md' }], source: 'handbook' }),
  });
  if (added.status !== 201) throw new Error(`could not store the handbook: ${added.status} ${await added.text()}`);
  return {
    url,
    defaultBaseUrl: `${url}/api/v1/proxy/default`,
    targetBaseUrl: `${url}/api/v1/proxy/${stub.url}/sk-target-key`,
    token,
    stub,
    idle: () => background.idle(),
    async close() {
      (server as unknown as { closeAllConnections(): void }).closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await stub.close();
    },
  };
}

/** The tool every client asks for through route A (the stub upstream calls it). */
export const WEATHER_CALL = { id: 'call_weather_1', name: 'get_weather', arguments: ['{"ci', 'ty":"Lis', 'bon"}'] };
