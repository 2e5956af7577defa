/** The parts of a V8 CPU profile (`Profiler.stop`, `.cpuprofile` files) that self time needs. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

const NATIVE = 'V8 builtins and native (JSON, regexps, program)';

/** Areas of a search or a proxied call, first match wins: a frame's URL (or name, for V8's own entries) → the area it belongs to. */
const AREAS: [string, (url: string, name: string) => boolean][] = [
  ['idle', (_, name) => name === '(idle)'],
  ['garbage collection', (_, name) => name === '(garbage collector)'],
  [
    'lexical index (vector-index/lexical, term-postings)',
    (url) => /vector-index\/(lexical|term-postings)\.ts/.test(url),
  ],
  ['fusion (vector-index/hybrid)', (url) => url.includes('vector-index/hybrid.ts')],
  ['dense ANN + exact rescoring (usearch, search.ts)', (url) => /vector-index\/(search|filter)\.ts|usearch/.test(url)],
  ['vector index, other', (url) => url.includes('vector-index/')],
  ['query terms (core/context/lexical, stemmer)', (url) => /core\/src\/context\/lexical|stemmer/.test(url)],
  ['embedding (lexical embedder)', (url) => url.includes('embedders/')],
  ['history filtering (core/history, tokenizer)', (url) => /core\/src\/(history|tokens)|gpt-tokenizer/.test(url)],
  ['AWS SDK (DynamoDB client, marshalling, HTTP)', (url) => /@aws-sdk|@smithy|@aws-crypto|dynamodb\//.test(url)],
  ['core context store (search, visibility)', (url) => url.includes('core/src/')],
  ['auth (jose)', (url) => /jose|\/auth\//.test(url)],
  ['validation (zod)', (url) => url.includes('zod')],
  ['request log', (url) => url.includes('observability/')],
  ['upstream client (undici, adapters/upstream, ssrf)', (url) => /undici|adapters\/src\/(upstream|ssrf)/.test(url)],
  ['proxy area (http/proxy)', (url) => url.includes('packages/http/src/proxy/')],
  ['Hono and the HTTP area', (url) => /hono|packages\/http\//.test(url)],
  ['Node internals (streams, http, buffers, timers)', (url) => url.startsWith('node:')],
  [NATIVE, (url) => url === ''],
];

/**
 * Self time (ms) of a profile's samples by area, largest first; frames no area claims are `other`. With
 * `nativeToCaller`, a V8 builtin (JSON.parse, a regexp, a string method) counts in the area of the code that called it.
 */
export function selfTimeByArea(
  profile: CpuProfile,
  { nativeToCaller = false }: { nativeToCaller?: boolean } = {},
): { name: string; ms: number }[] {
  const areaOf = new Map<number, string>();
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const own = (node: CpuProfile['nodes'][number]) =>
    AREAS.find(([, test]) => test(node.callFrame.url, node.callFrame.functionName))?.[0] ?? 'other';
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  for (const node of profile.nodes) {
    let area = own(node);
    if (nativeToCaller && area === NATIVE && !node.callFrame.functionName.startsWith('(')) {
      for (let up = parentOf.get(node.id); up !== undefined; up = parentOf.get(up)) {
        const caller = own(byId.get(up) as CpuProfile['nodes'][number]);
        if (caller !== NATIVE) {
          area = caller;
          break;
        }
      }
    }
    areaOf.set(node.id, area);
  }
  const totals = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const area = areaOf.get(id) ?? 'other';
    totals.set(area, (totals.get(area) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return [...totals].map(([name, ms]) => ({ name, ms })).sort((a, b) => b.ms - a.ms);
}
