import { existsSync } from 'node:fs';
import { createLocalDocs } from '@memgate/local/docs';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClientMatrixServer, startClientMatrixServer } from '../clients/server.ts';

// /docs in a real browser (Debian's chromium, headless): the page a user opens, not the HTML we send.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

let server: ClientMatrixServer;
let browser: Browser;
beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`no browser at ${CHROMIUM}: apt-get install chromium (.ci/run does)`);
  server = await startClientMatrixServer({ docs: createLocalDocs() });
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

type Schema = { $ref?: string; properties?: Record<string, unknown> };
type Operation = { summary?: string; requestBody?: { content?: Record<string, { schema?: Schema }> } };
type Doc = { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, Schema> } };

/** The longest property name of an operation's JSON request body, its reference resolved. */
function longestField(doc: Doc, operation: Operation): string | undefined {
  let schema = operation.requestBody?.content?.['application/json']?.schema;
  if (schema?.$ref) schema = doc.components?.schemas?.[schema.$ref.split('/').at(-1) ?? ''];
  return Object.keys(schema?.properties ?? {}).sort((a, b) => b.length - a.length)[0];
}

describe('/docs (Scalar)', () => {
  it('lists every endpoint with resolved request schemas, loading nothing from outside the service', async () => {
    const doc = (await (await fetch(`${server.url}/api/v1/openapi.json`)).json()) as Doc;
    const operations = Object.values(doc.paths).flatMap((methods) => Object.values(methods));
    const page = await browser.newPage();
    const outside: string[] = [];
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(server.url) || url.startsWith('data:')) return route.continue();
      outside.push(url);
      return route.abort();
    });
    await page.goto(`${server.url}/docs`);
    // Every operation is listed by its summary once the viewer has read the document (all groups open).
    const last = operations.at(-1)?.summary ?? '';
    await page.getByText(last, { exact: true }).first().waitFor({ timeout: 60_000 });
    // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered (what a user sees), not hidden nodes
    const text = await page.locator('body').innerText();
    for (const operation of operations) expect(text).toContain(operation.summary);
    // Each request body is shown with its fields (its longest field name, as a check), never as a bare reference.
    for (const operation of operations) {
      const field = longestField(doc, operation);
      if (!field || !operation.summary) continue;
      await page.getByText(operation.summary, { exact: true }).first().click();
      await page.getByText(field, { exact: true }).first().waitFor({ timeout: 20_000 });
    }
    // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered
    expect(await page.locator('body').innerText()).not.toContain('$ref');
    expect(outside).toEqual([]);
    // The code samples a user copies name this host (they said `curl /api/v1/...` with no server in the document).
    const samples = await page.evaluate(() =>
      [...document.querySelectorAll('pre, code')].map((node) => node.textContent ?? ''),
    );
    const curls = samples.filter((sample) => sample.startsWith('curl '));
    expect(curls.length).toBeGreaterThan(0);
    for (const curl of curls) expect(curl).toMatch(new RegExp(`^curl '?${server.url}/api/v1/`));
    // Copied as they stand, they use memory: no sample sends a switch that turns filtering, context or storing off.
    const proxySamples = curls.filter((curl) => curl.includes('/api/v1/proxy/'));
    expect(proxySamples.length).toBeGreaterThan(0);
    for (const curl of proxySamples) expect(curl).not.toMatch(/x-memgate-/i);
    // Nor a filter the user did not ask for: a copied view lists every record the caller sees.
    const viewSamples = curls.filter((curl) => curl.includes('/api/v1/context/view'));
    expect(viewSamples.length).toBeGreaterThan(0);
    for (const curl of viewSamples) expect(curl).not.toMatch(/[?&](context_type|scope|user_id|organization_id)=/);
  }, 120_000);

  it('opens with no error in the console (the browser asked for /favicon.ico: a 404 on every visit)', async () => {
    // A page of its own: request interception (above) keeps chromium from asking for a favicon at all.
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(`${server.url}/docs`, { waitUntil: 'networkidle' });
    expect(errors).toEqual([]);
  }, 60_000);
});
