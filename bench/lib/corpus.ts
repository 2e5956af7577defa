/**
 * Synthetic but word-like text for the context store: a fixed vocabulary drawn by a seeded generator, so runs are
 * repeatable and the lexical embedder sees realistic overlap between documents and queries.
 */
const WORDS = (
  'account password reset invoice payment refund shipping order delivery product warranty return policy support ' +
  'login email address billing plan upgrade cancel subscription report revenue quarter sales region team meeting ' +
  'schedule project deadline design review release version bug feature request customer feedback survey data ' +
  'server latency cache index query storage backup restore migration database cluster region replica failover ' +
  'contract renewal discount pricing tier quota limit usage alert incident outage postmortem runbook escalation'
).split(' ');

function generator(seed: number): () => number {
  let state = (seed * 2654435761 + 1) >>> 0;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state;
  };
}

/** A sentence-built paragraph of about `chars` characters (default ~1 KB, one chunk of the store's chunker). */
export function paragraph(seed: number, chars = 950): string {
  const next = generator(seed);
  const sentences: string[] = [];
  let length = 0;
  while (length < chars) {
    const words = Array.from({ length: 8 + (next() % 8) }, () => WORDS[next() % WORDS.length] as string);
    const sentence = `${words.join(' ')} ${seed}.`;
    const capital = sentence.charAt(0).toUpperCase() + sentence.slice(1);
    sentences.push(capital);
    length += capital.length + 1;
  }
  return sentences.join(' ');
}

/** A document of `paragraphs` ~1 KB paragraphs separated by blank lines: the chunker makes one chunk of each. */
export function documentText(seed: number, paragraphs: number): string {
  return Array.from({ length: paragraphs }, (_, i) => paragraph(seed * 1000 + i)).join('\n\n');
}

/** A short query made of vocabulary words (what a user would type). */
export function queryText(seed: number): string {
  const next = generator(seed + 7919);
  return Array.from({ length: 6 }, () => WORDS[next() % WORDS.length] as string).join(' ');
}

/**
 * The body of one context add: `documents` documents of `chunksPerDocument` chunks. Document `i` is built from seed
 * `firstSeed + i`, so calls with disjoint seed ranges never add the same document twice (which would replace it).
 */
export function addBody({
  firstSeed,
  documents,
  chunksPerDocument,
  source = 'bench',
}: {
  firstSeed: number;
  documents: number;
  chunksPerDocument: number;
  source?: string;
}) {
  return {
    source,
    documents: Array.from({ length: documents }, (_, i) => {
      const seed = firstSeed + i;
      const content = documentText(seed, chunksPerDocument);
      return {
        content,
        fileName: `bench-${seed}.txt`,
        fileType: 'txt',
        fileSize: content.length,
        lastModified: '2026-01-01T00:00:00.000Z',
      };
    }),
  };
}
