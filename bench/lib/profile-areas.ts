/** The parts of a V8 CPU profile (`Profiler.stop`, `.cpuprofile` files) that self time needs. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string } }[];
  samples: number[];
  timeDeltas: number[];
}

/** Areas of a search, first match wins: a frame's URL (or name, for V8's own entries) → the area it belongs to. */
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
  ['AWS SDK (DynamoDB client, marshalling, HTTP)', (url) => /@aws-sdk|@smithy|@aws-crypto|dynamodb\//.test(url)],
  ['core context store (search, visibility)', (url) => url.includes('core/src/')],
  ['auth (jose)', (url) => /jose|\/auth\//.test(url)],
  ['validation (zod)', (url) => url.includes('zod')],
  ['request log', (url) => url.includes('observability/')],
  ['Hono and the HTTP area', (url) => /hono|packages\/http\//.test(url)],
  ['Node internals (streams, http, buffers, timers)', (url) => url.startsWith('node:')],
  ['V8 builtins and native (JSON, regexps, program)', (url) => url === ''],
];

/** Self time (ms) of a profile's samples by area, largest first; frames no area claims are `other`. */
export function selfTimeByArea(profile: CpuProfile): { name: string; ms: number }[] {
  const areaOf = new Map<number, string>();
  for (const node of profile.nodes) {
    const { url, functionName } = node.callFrame;
    areaOf.set(node.id, AREAS.find(([, test]) => test(url, functionName))?.[0] ?? 'other');
  }
  const totals = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const area = areaOf.get(id) ?? 'other';
    totals.set(area, (totals.get(area) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return [...totals].map(([name, ms]) => ({ name, ms })).sort((a, b) => b.ms - a.ms);
}
