import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUpstreamStub, type UpstreamStub } from '../support/upstream-stub.ts';
import { type BadBody, badBodies, deepNesting, longString, oddUnicode, type Rules } from './arbitraries.ts';
import {
  ALL_SCOPES,
  isAreaError,
  routeAPath,
  type SecurityHarness,
  startSecurityHarness,
  tokenFor,
} from './harness.ts';

// Property-based bad input over every endpoint's body and query (issue 8): whatever is wrong, the answer is a 4xx in
// the area's error format, never a 5xx, and nothing is written (table items, vectors, upstream requests).

/** Percent-encodes the UTF-8 bytes (encodeURIComponent throws on lone surrogates). */
const pct = (text: string) => [...Buffer.from(text)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
const RUNS = Number(process.env.FUZZ_RUNS ?? 50);
let h: SecurityHarness;
let stub: UpstreamStub;
let token: string;
let before: { items: number; vectors: number };
const tried: Record<string, number> = {};

beforeAll(async () => {
  stub = await startUpstreamStub();
  h = await startSecurityHarness();
  token = await tokenFor('fuzzer', { orgs: ['acme'], scope: ALL_SCOPES });
  // Something to search, view and (not) delete, so a wrong filter could reach real records.
  const seeded = await h.request('POST', '/api/v1/context/add', {
    token,
    body: { documents: [{ content: 'seed note about fuzzing', fileName: 'seed.txt' }], source: 'seed' },
  });
  expect(seeded.status).toBe(201);
  before = { items: await h.itemCount(), vectors: h.vectorIds().length };
});
afterAll(async () => {
  await stub.close();
  console.info(`bad input: cases tried per endpoint ${JSON.stringify(tried)}`);
});

async function expectRefused(name: string, method: 'GET' | 'POST', path: string, bad: BadBody | undefined) {
  tried[name] = (tried[name] ?? 0) + 1;
  const area = path.startsWith('/api/v1/proxy') ? 'proxy' : path.startsWith('/api/v1/chat') ? 'chat' : 'context';
  const res = await h.request(method, path, { token, ...(bad ? { raw: bad.raw } : {}) });
  const what = `${name} ${bad?.label ?? path}: ${res.status} ${res.text.slice(0, 200)}`;
  expect(res.status, what).toBeGreaterThanOrEqual(400);
  expect(res.status, what).toBeLessThan(500);
  expect(isAreaError(area, res.status, res.text), what).toBe(true);
  expect({ items: await h.itemCount(), vectors: h.vectorIds().length }, what).toEqual(before);
  expect(stub.requests, what).toHaveLength(0);
}

const doc = { content: 'fine text', fileName: 'f.txt' };
const otherUser = fc.constantFrom('someone-else', 'FUZZER', 'fuzzer ', 'fuzzer\u0000');
const foreignOrg = fc.oneof(fc.constantFrom('globex', 'ACME', 'acme\u200b', 'acme '), oddUnicode);
// Finite numbers only: JSON writes NaN and ±Infinity as null, which a nullable field takes as left out.
const finite = { noNaN: true, noDefaultInfinity: true };
const unit = (min = 0, max = 1) => [
  fc.double({ max: min - 1e-9, ...finite }),
  fc.double({ min: max + 1e-9, ...finite }),
];

const addRules: Rules = {
  documents: {
    kind: 'array',
    required: true,
    invalid: [
      fc.constant([]),
      fc.constant(Array.from({ length: 101 }, () => doc)),
      fc.constant([{ fileName: 'no content' }]),
      fc.constant([{ content: ' \n\t\u3000\u00a0' }]),
      longString(1_000_001).map((content) => [{ content }]),
      fc.constant([{ ...doc, fileSize: -1 }]),
      fc.constant([{ ...doc, fileName: 'n'.repeat(1025) }]),
      fc.constant([doc, 'not a document']),
    ],
  },
  user_id: { kind: 'string', nullable: true, invalid: [otherUser, longString(129), fc.constant('')] },
  organization_id: { kind: 'string', nullable: true, invalid: [foreignOrg] },
  source: { kind: 'string', nullable: true, invalid: [longString(1025)] },
  context_type: { kind: 'string', nullable: true, invalid: [oddUnicode] },
  scope: { kind: 'string', nullable: true, invalid: [oddUnicode] },
  metadata: {
    kind: 'object',
    nullable: true,
    invalid: [fc.constant({ file_name: 3 }), fc.constant({ modalities: [1] })],
  },
  chained: { kind: 'booleanLike', nullable: true, invalid: [fc.constantFrom('yes', 'TRUE', 1, 0)] },
  tags: {
    kind: 'array',
    nullable: true,
    invalid: [fc.constant(Array.from({ length: 101 }, (_, i) => `t${i}`)), fc.constant([1])],
  },
};

const searchValid = { query: 'seed note', similarity_threshold: 1, minimum_similarity_threshold: 0 };
const searchRules: Rules = {
  query: { kind: 'string', required: true, invalid: [fc.constant(''), longString(10_001)] },
  similarity_threshold: { kind: 'number', required: true, invalid: unit() },
  minimum_similarity_threshold: { kind: 'number', required: true, invalid: unit() },
  top_k: { kind: 'integer', nullable: true, invalid: [fc.constantFrom(0, -1, 101, 1_000_000, 2.5)] },
  scope: { kind: 'string', nullable: true, invalid: [oddUnicode] },
  organization_id: { kind: 'string', nullable: true, invalid: [foreignOrg] },
  user_id: { kind: 'string', nullable: true, invalid: [otherUser] },
  metadata: {
    kind: 'object',
    nullable: true,
    invalid: [fc.constant({ file_name: 3 }), fc.constant({ tags: { a: 1 } })],
  },
};

const deleteRules: Rules = {
  source: { kind: 'string', required: true, invalid: [fc.constant(''), longString(1025)] },
  by_doc: { kind: 'boolean', nullable: true },
  by_id: { kind: 'boolean', nullable: true },
  user_id: { kind: 'string', nullable: true, invalid: [otherUser] },
  organization_id: { kind: 'string', nullable: true, invalid: [foreignOrg] },
};

const messages = [{ role: 'user', content: 'hello' }];
const messageRules = [
  fc.constant([]),
  fc.constant([{ role: 'robot', content: 'x' }]),
  fc.constant([{ role: 'user' }]),
  fc.constant([{ role: 'user', content: 5 }]),
  fc.constant(['hello']),
  oddUnicode.map((role) => [{ role, content: 'x' }]),
];
const proxyRules: Rules = {
  model: { kind: 'string', required: true, invalid: [fc.constant('')] },
  messages: { kind: 'array', required: true, invalid: messageRules },
  max_tokens: { kind: 'integer', nullable: true, invalid: [fc.constantFrom(0, -5, 1.5)] },
  temperature: { kind: 'number', nullable: true, invalid: unit(0, 2) },
  top_p: { kind: 'number', nullable: true, invalid: unit() },
  frequency_penalty: { kind: 'number', nullable: true, invalid: unit(-2, 2) },
  presence_penalty: { kind: 'number', nullable: true, invalid: unit(-2, 2) },
  stream: { kind: 'boolean', nullable: true },
  tools: { kind: 'array', nullable: true, invalid: [fc.constant([{ function: {} }]), fc.constant([1])] },
  n: { kind: 'integer', nullable: true, invalid: [fc.constantFrom(0, 129, 1.5)] },
};

const chatRules: Rules = {
  chat_history: {
    kind: 'array',
    required: true,
    invalid: [
      ...messageRules,
      fc.constant([{ role: 'tool', content: 'x' }]),
      fc.constant([...messages, { role: 'assistant', content: 'last is not the user' }]),
      fc.constant(Array.from({ length: 501 }, () => messages[0])),
      longString(1_000_001).map((content) => [{ role: 'user', content }]),
    ],
  },
  chatId: { kind: 'string', nullable: true, invalid: [fc.constant(''), longString(201), fc.uuid()] },
  persona: { kind: 'string', nullable: true, invalid: [longString(10_001)] },
  scope: { kind: 'string', nullable: true, invalid: [oddUnicode] },
  tools: {
    kind: 'array',
    nullable: true,
    invalid: [
      fc.constant([{ type: 'function', function: { name: 'bad name!' } }]),
      fc.constant([{ type: 'code', function: { name: 'f' } }]),
      fc.constant([{ type: 'function' }]),
    ],
  },
};

describe('bad input: every body refused with a 4xx in the area format, nothing written', () => {
  const routeA = () => routeAPath(stub.url);
  const cases: [string, string | (() => string), Record<string, unknown>, Rules][] = [
    ['context add', '/api/v1/context/add', { documents: [doc] }, addRules],
    ['context search', '/api/v1/context/search', searchValid, searchRules],
    ['context delete', '/api/v1/context/delete', { source: 'seed' }, deleteRules],
    ['proxy route A', routeA, { model: 'stub-model', messages }, proxyRules],
    [
      'proxy route B',
      '/api/v1/proxy/default/chat/completions',
      { model: 'memgate/default', messages },
      { ...proxyRules, model: { kind: 'string', required: true, invalid: [oddUnicode, fc.constant('gpt-4o')] } },
    ],
    ['chat stream', '/api/v1/chat/generate/stream', { chat_history: messages }, chatRules],
  ];
  it.each(cases)('%s', async (name, path, valid, rules) => {
    await fc.assert(
      fc.asyncProperty(badBodies(valid, rules), (bad) =>
        expectRefused(name, 'POST', typeof path === 'string' ? path : path(), bad),
      ),
      { numRuns: RUNS },
    );
  });

  it('context delete with neither by_doc nor by_id, and search with min above max', async () => {
    await expectRefused('context delete', 'POST', '/api/v1/context/delete', {
      label: 'by_doc and by_id false',
      raw: JSON.stringify({ source: 'seed', by_doc: false, by_id: false }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        async (a, b) => {
          fc.pre(a !== b);
          const band = { similarity_threshold: Math.min(a, b), minimum_similarity_threshold: Math.max(a, b) };
          const raw = JSON.stringify({ query: 'q', ...band });
          await expectRefused('context search', 'POST', '/api/v1/context/search', { label: 'min > max', raw });
        },
      ),
      { numRuns: Math.ceil(RUNS / 4) },
    );
  });
});

describe('bad input: every query refused with a 4xx, nothing written', () => {
  const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const badQuery = fc.oneof(
    fc.constantFrom('0', '-1', '1001', '1.5', 'ten', '', '1e400', ' ').map((v) => `limit=${v}`),
    oddUnicode.map((v) => `context_type=${pct(v)}`),
    oddUnicode.map((v) => `scope=${pct(v)}`),
    foreignOrg.map((v) => `organization_id=${pct(v)}`),
    fc.constantFrom('garbage', '%%%', 'x'.repeat(4097)).map((v) => `cursor=${pct(v)}`),
    fc
      .oneof(
        fc.jsonValue({ maxDepth: 3 }),
        fc.constant({ pk: 'user#someone-else', sk: 'x' }),
        fc.constant(JSON.parse(deepNesting(40))),
      )
      .map((v) => `cursor=${cursorOf(v)}`),
  );
  it.each([
    ['context view', '/api/v1/context/view'],
    ['context view/docs', '/api/v1/context/view/docs'],
  ])('%s', async (name, path) => {
    await fc.assert(
      fc.asyncProperty(badQuery, (query) => expectRefused(name, 'GET', `${path}?${query}`, undefined)),
      { numRuns: RUNS },
    );
  });

  it('chat replay of any id that is not a replay of the caller', async () => {
    const id = fc.oneof(fc.uuid(), oddUnicode, fc.string({ minLength: 1, maxLength: 3000 }), longString(5000));
    await fc.assert(
      fc.asyncProperty(id, (value) =>
        expectRefused('chat replay', 'GET', `/api/v1/chat/replay/${pct(value)}`, undefined),
      ),
      { numRuns: RUNS },
    );
  });
});

describe('odd but valid input is never a 5xx', () => {
  const text = fc.oneof(
    oddUnicode,
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 60 }),
  );
  it('free text in add, search, the proxy and the chat', async () => {
    await fc.assert(
      fc.asyncProperty(text, text, async (content, name) => {
        tried['odd valid'] = (tried['odd valid'] ?? 0) + 1;
        const bodies: [string, unknown][] = [
          ['/api/v1/context/add', { documents: [{ content: `x ${content}`, fileName: name }], source: name }],
          ['/api/v1/context/search', { ...searchValid, query: content }],
          ['/api/v1/context/delete', { source: name }],
          [
            '/api/v1/proxy/default/chat/completions',
            { model: 'memgate/default', messages: [{ role: 'user', content }] },
          ],
          ['/api/v1/chat/generate/stream', { chat_history: [{ role: 'user', content }], persona: name }],
        ];
        for (const [path, body] of bodies) {
          const res = await h.request('POST', path, { token, body, headers: { 'x-memgate-store': 'off' } });
          expect(res.status, `${path} ${JSON.stringify(body)}: ${res.text.slice(0, 200)}`).toBeLessThan(500);
          expect(res.text).not.toMatch(/"error":\{"message":/);
        }
        const docs = await h.request('GET', '/api/v1/context/view/docs?limit=1000', { token });
        expect(docs.status).toBe(200);
      }),
      { numRuns: Math.ceil(RUNS / 2) },
    );
  });

  it('a persona named like an Object.prototype member is free text, and the answer completes', async () => {
    for (const persona of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      const res = await h.request('POST', '/api/v1/chat/generate/stream', {
        token,
        body: { chat_history: [{ role: 'user', content: 'what is the seed note about?' }], persona },
      });
      expect(res.status).toBe(200);
      expect(res.text, persona).toContain('"type":"final_response"');
      expect(res.text, persona).not.toMatch(/"error":\{"message":/);
    }
  });

  it('metadata too deep or too big for one DynamoDB item is a 400, not a failed write', async () => {
    const cases: [string, number][] = [
      [`{"deep":${deepNesting(10)}}`, 201],
      [`{"deep":${deepNesting(31)}}`, 400],
      [`{"deep":${deepNesting(1000)}}`, 400],
      [JSON.stringify({ big: 'x'.repeat(450_000) }), 400],
    ];
    for (const [metadata, status] of cases) {
      const raw = `{"documents":[{"content":"nested ${metadata.length}"}],"metadata":${metadata}}`;
      const res = await h.request('POST', '/api/v1/context/add', { token, raw });
      expect(res.status, `${metadata.slice(0, 40)}: ${res.text.slice(0, 200)}`).toBe(status);
      if (status === 400) expect(res.text).toContain('metadata');
    }
  });
});
