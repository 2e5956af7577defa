import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The way a user runs it: `npm start` in a fresh directory, then HTTP from outside the process.
const root = join(import.meta.dirname, '..');
let server: ChildProcess;
let url: string;
let dataDir: string;

function childPids(pid: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function tokenCli(...args: string[]): string {
  return execFileSync(process.execPath, ['--import', 'tsx', 'packages/local/src/token-cli.ts', ...args], {
    cwd: root,
    env: { ...process.env, DATA_DIR: dataDir },
    encoding: 'utf8',
  }).trim();
}

/** `npm start` on `dataDir`; resolves with its URL once it listens. */
async function start(): Promise<string> {
  const { DYNAMODB_ENDPOINT: _ignored, ...env } = process.env;
  server = spawn(process.execPath, ['--import', 'tsx', 'packages/local/src/main.ts'], {
    cwd: root,
    env: { ...env, PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise<string>((resolve, reject) => {
    server.stdout?.on('data', (chunk) => {
      output += String(chunk);
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
    server.stderr?.on('data', (chunk) => {
      output += String(chunk);
    });
    server.once('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'memgate-server-'));
  url = await start();
}, 60_000);

afterAll(() => {
  if (server.exitCode === null) server.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start (the local server as a child process)', () => {
  it('serves /health and the API reference', async () => {
    expect(await (await fetch(`${url}/health`)).json()).toEqual({ status: 'ok' });
    const docs = await fetch(`${url}/docs`);
    expect(docs.status).toBe(200);
    // Scalar's page reads the document and loads its viewer from this server (test/docs/browser.test.ts opens it).
    const page = await docs.text();
    expect(page).toContain('/api/v1/openapi.json');
    expect(page).toContain('/docs/scalar.js');
    const viewer = await fetch(`${url}/docs/scalar.js`);
    expect(viewer.headers.get('content-type')).toContain('javascript');
    expect((await viewer.text()).length).toBeGreaterThan(100_000);
    expect(await (await fetch(`${url}/api/v1/openapi.json`)).text()).toContain('/api/v1/context/add');
  });

  it('accepts a token from `npm run token` and refuses a wrong one', async () => {
    const token = tokenCli('--user', 'alice', '--orgs', 'acme');
    const ok = await fetch(`${url}/api/v1/context/view`, { headers: { authorization: `Bearer ${token}` } });
    expect(ok.status).toBe(200);
    const bad = await fetch(`${url}/api/v1/context/view`, { headers: { authorization: `Bearer ${token}x` } });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({ error: 'authentication_error' });
  });

  it('stores a document and finds it again over HTTP', async () => {
    const token = tokenCli('--user', 'bob');
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const add = await fetch(`${url}/api/v1/context/add`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        documents: [
          { content: 'The quarterly launch of the Falcon rocket is planned for March.', fileName: 'plan.md' },
        ],
      }),
    });
    expect(add.status).toBe(201);
    const search = await fetch(`${url}/api/v1/context/search`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        query: 'Falcon rocket launch',
        similarity_threshold: 1,
        minimum_similarity_threshold: 0.05,
      }),
    });
    expect(search.status).toBe(202);
    const { results } = (await search.json()) as { results: { contextData: string }[] };
    expect(results[0]?.contextData).toContain('Falcon rocket');
  });

  it('lets a browser app on another origin call it, as the deployment does (CORS)', async () => {
    const origin = { origin: 'http://localhost:3000' };
    const preflight = (path: string, headers: string) =>
      fetch(`${url}${path}`, {
        method: 'OPTIONS',
        headers: { ...origin, 'access-control-request-method': 'POST', 'access-control-request-headers': headers },
      });
    for (const [path, headers] of [
      ['/api/v1/chat/generate/stream', 'authorization,content-type'],
      ['/api/v1/proxy/default/chat/completions', 'authorization,content-type,x-memgate-store'],
      // What the openai SDK sends from a browser (dangerouslyAllowBrowser) with every call.
      ['/api/v1/proxy/default/responses', 'authorization,content-type,x-stainless-os,x-stainless-retry-count'],
      ['/api/v1/context/search', 'authorization,content-type'],
      ['/mcp', 'authorization,content-type,accept,mcp-protocol-version'],
    ] as const) {
      const answer = await preflight(path, headers);
      expect(answer.status, path).toBe(204);
      expect(answer.headers.get('access-control-allow-origin')).toBe('*');
      expect(answer.headers.get('access-control-allow-methods')).toContain('POST');
      for (const header of headers.split(','))
        expect(answer.headers.get('access-control-allow-headers')).toContain(header);
    }
    // The answers themselves, the proxy's stream (written to the socket as it comes) with its report headers.
    const headers = {
      ...origin,
      authorization: `Bearer ${tokenCli('--user', 'carol')}`,
      'content-type': 'application/json',
    };
    const chat = await fetch(`${url}/api/v1/chat/generate/stream`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ chat_history: [{ role: 'user', content: 'hello' }] }),
    });
    expect(chat.headers.get('access-control-allow-origin')).toBe('*');
    expect(await chat.text()).toContain('data: [DONE]');
    const proxied = await fetch(`${url}/api/v1/proxy/default/chat/completions`, {
      method: 'POST',
      headers: { ...headers, 'x-memgate-store': 'off' },
      body: JSON.stringify({ model: 'memgate/default', stream: true, messages: [{ role: 'user', content: 'hello' }] }),
    });
    expect(proxied.headers.get('access-control-allow-origin')).toBe('*');
    expect(proxied.headers.get('access-control-expose-headers')).toContain('x-memgate-history-kept');
    expect(await proxied.text()).toContain('data: [DONE]');
    // A request without an Origin (a server-side client) gets no CORS headers.
    expect((await fetch(`${url}/health`)).headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses `npm run cleanup` on the DATA_DIR it is serving, in one clear line, and keeps serving', () => {
    const { DYNAMODB_ENDPOINT: _ignored, ...env } = process.env;
    let failure: { status?: number; stderr?: string } = {};
    try {
      execFileSync(process.execPath, ['--import', 'tsx', 'packages/local/src/cleanup-cli.ts'], {
        cwd: root,
        env: { ...env, DATA_DIR: dataDir },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (error) {
      failure = error as { status?: number; stderr?: string };
    }
    expect(failure.status).toBe(1);
    expect(failure.stderr?.trim()).toMatch(
      new RegExp(`^cleanup failed: DATA_DIR \\S+ is in use by process ${server.pid} \\(another`),
    );
  }, 30_000);

  it('serves on after the refused cleanup', async () => {
    expect((await fetch(`${url}/health`)).status).toBe(200);
  });

  const question = 'Which pier does the night ferry use on Sundays?';

  it('stops on SIGTERM and leaves no java process behind', async () => {
    // An exchange captured just before the signal: stored in a batch after the response, drained by the shutdown.
    const token = tokenCli('--user', 'carol');
    const completion = await fetch(`${url}/api/v1/proxy/default/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'memgate/default', messages: [{ role: 'user', content: question }] }),
    });
    expect(completion.status).toBe(200);
    await completion.text();
    const java = childPids(server.pid as number);
    expect(java.length).toBeGreaterThan(0);
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    server.kill('SIGTERM');
    expect(await exited).toBe(0);
    const deadline = Date.now() + 10_000;
    while (java.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(java.filter(alive)).toEqual([]);
  }, 20_000);

  it('kept the exchange the proxy captured just before SIGTERM (the shutdown stores what is held)', async () => {
    url = await start();
    const token = tokenCli('--user', 'carol');
    const docs = await fetch(`${url}/api/v1/context/view/docs`, { headers: { authorization: `Bearer ${token}` } });
    expect(docs.status).toBe(200);
    const { documents } = (await docs.json()) as { documents: { context_type: string; source: string }[] };
    expect(documents.map(({ context_type, source }) => ({ context_type, source }))).toEqual([
      { context_type: 'conversation', source: 'memgate-proxy' },
    ]);
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
  }, 60_000);
});
