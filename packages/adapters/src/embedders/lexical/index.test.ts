import { createHash } from 'node:crypto';
import { textWords } from '@memgate/core';
import { describe, expect, it } from 'vitest';
import { embedderConformance } from '../../../../../test/conformance/embedder.ts';
import { createLexicalEmbedder } from './index.ts';

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += (a[i] ?? 0) * (b[i] ?? 0);
  return dot;
}

embedderConformance('lexical embedder', () => createLexicalEmbedder({ dimension: 512 }));

describe('lexical embedder', () => {
  const embedder = createLexicalEmbedder({ dimension: 512 });
  const similarity = async (a: string, b: string) => {
    const [x, y] = await embedder.embed([a, b], 'document');
    return cosine(x as Float32Array, y as Float32Array);
  };

  it('names its version and dimension', () => {
    expect(embedder.id).toBe('lexical-v1:512');
    expect(createLexicalEmbedder().dimension).toBe(512);
  });

  it('scores related texts clearly above unrelated ones', async () => {
    const query = 'How do I reset my account password?';
    const related = 'To reset your password, open account settings and choose "Reset password".';
    const unrelated = 'Quarterly revenue grew twelve percent, driven by strong sales in the northern region.';
    const near = await similarity(query, related);
    const far = await similarity(query, unrelated);
    expect(near).toBeGreaterThan(0.3);
    expect(far).toBeLessThan(0.1);
    expect(near - far).toBeGreaterThan(0.25);
  });

  it('matches word forms and typos through character n-grams', async () => {
    const base = await similarity('invoice payments', 'paying invoices');
    const other = await similarity('invoice payments', 'mountain hiking trails');
    expect(base).toBeGreaterThan(other + 0.2);
  });

  it('rewards word order through bigrams', async () => {
    expect(await similarity('dog bites man', 'dog bites man')).toBeCloseTo(1, 5);
    expect(await similarity('dog bites man', 'man bites dog')).toBeLessThan(0.95);
  });

  it('lowercases and normalises Unicode, independent of locale', async () => {
    expect(await similarity('ÉCOLE Straße', 'école straße')).toBeCloseTo(1, 5);
    expect(await similarity('ﬁle café', 'file café')).toBeCloseTo(1, 5);
  });

  it('embeds scripts without spaces and symbol-only texts', async () => {
    const [cjk, symbols] = await embedder.embed(['東京の天気予報', '🎉🎉 !!'], 'document');
    expect(cosine(cjk as Float32Array, cjk as Float32Array)).toBeCloseTo(1, 5);
    expect(cosine(symbols as Float32Array, symbols as Float32Array)).toBeCloseTo(1, 5);
    expect(await similarity('東京の天気予報', '東京の天気')).toBeGreaterThan(0.3);
  });

  it('gives exactly the vectors of earlier versions, so stored vectors keep matching new queries', async () => {
    const texts = [
      'To reset your password, open account settings and choose "Reset password".',
      '東京の天気予報 ÉCOLE Straße ﬁle café',
      'the the the of of and',
      // Thousands of distinct features: more than the feature table starts with.
      Array.from({ length: 3000 }, (_, i) => `w${(i * 7919) % 100003}`).join(' '),
    ];
    const hash = createHash('sha256');
    for (const vector of await embedder.embed(texts, 'document')) {
      hash.update(Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength));
    }
    // Digest of the bytes the first version (lexical-v1) produced; a change here re-ranks every stored vector.
    expect(hash.digest('hex')).toBe('e2d244483c453153469463280a72b7860bd5c46021804b5ea2ce3442f39704ce');
  });

  it('gives the vectors of earlier versions for repeated words, long runs, and texts that outgrow the feature table', async () => {
    const texts = [
      'banana banana bandana: the banana, the bandana and the Banana again',
      'Caroline: I went to the support group yesterday. Caroline said the group helped; the group meets weekly.',
      `${'x'.repeat(60)} ${'x'.repeat(60)} short ${'x'.repeat(60)} short`,
      Array.from({ length: 4000 }, (_, i) => `w${(i * 7919) % 997}`).join(' '),
      // More features than a table is kept for: room made token by token, then the table shrinks back.
      Array.from({ length: 12000 }, (_, i) => `v${(i * 7919) % 10007}`).join(' '),
      '東京の天気予報 東京の天気 ÉCOLE école Straße straße',
    ];
    const hash = createHash('sha256');
    const vectors = [
      ...(await embedder.embed(texts, 'document')),
      ...(await embedder.embed(texts.slice(0, 1), 'document')),
    ];
    for (const vector of vectors) hash.update(Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength));
    // Digest of what lexical-v1 gave before its feature table made room ahead of each text (session 8).
    expect(hash.digest('hex')).toBe('36087a6e01b7461d0b32b4894c7d212974d2bf3422cf51cbbeec462685ffa573');
  });

  it('embeds the words a caller has read already (textWords) into the vectors of the texts', async () => {
    const texts = ['To reset your password, open settings.', '東京の天気予報 ÉCOLE ﬁle', '🎉🎉 !!', '   ', 'the of'];
    const fromWords = await embedder.embedWords?.(texts, texts.map(textWords), 'document');
    expect(fromWords).toEqual(await embedder.embed(texts, 'document'));
    expect(fromWords?.[2]?.some((value) => value !== 0)).toBe(true);
  });

  it('embeds a batch that gives way (its words let go, the rest tokenised) into the same vectors', async () => {
    // ~40 ms of embedding: the batch yields every 10 ms.
    const texts = Array.from({ length: 600 }, (_, i) =>
      Array.from({ length: 150 }, (_, j) => `word${(i * 31 + j * 7) % 997}x`).join(' '),
    );
    const fromWords = await embedder.embedWords?.(texts, texts.map(textWords), 'document');
    expect(fromWords).toEqual(await embedder.embed(texts, 'document'));
  });

  it('gives the zero vector for a text with no tokens', async () => {
    const [empty] = await embedder.embed(['   '], 'query');
    expect(Array.from(empty as Float32Array).every((value) => value === 0)).toBe(true);
  });

  it('rejects a dimension that is not a power of two', () => {
    expect(() => createLexicalEmbedder({ dimension: 500 })).toThrow(/power of two/);
  });
});
