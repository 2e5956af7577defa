import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { countTokens as countWithGptTokenizer, decode as decodeWithGptTokenizer } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { countTokens, decode, encode } from './tokenizer.ts';

const MIB = 1024 * 1024;

describe('the lazily loaded tokenizer', () => {
  it('counts, encodes and decodes as gpt-tokenizer does', () => {
    for (const text of ['', 'Was the quarterly invoice paid?', '日本語のテキスト 🙂', 'a'.repeat(3000)]) {
      expect(countTokens(text)).toBe(countWithGptTokenizer(text));
      expect(decode(encode(text))).toBe(text);
      expect(decodeWithGptTokenizer(encode(text))).toBe(text);
    }
  });

  it('builds its table on the first count, not when core is imported (a process that never counts never pays it)', () => {
    // In a fresh process: the heap V8 holds after importing core, then after one count. The o200k table is ~20 MB
    // of heap; imported eagerly it would be there before the count.
    const script = [
      "const core = await import('@memgate/core');",
      'const used = () => { globalThis.gc(); return process.memoryUsage().heapUsed; };',
      'const imported = used();',
      "core.countTokens('hello there');",
      'console.log(JSON.stringify({ imported, counted: used() }));',
    ].join('\n');
    const child = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('.', import.meta.url)),
      encoding: 'utf8',
    });
    expect(child.status, child.stderr).toBe(0);
    const { imported, counted } = JSON.parse(child.stdout) as { imported: number; counted: number };
    expect((counted - imported) / MIB).toBeGreaterThan(10);
  }, 30_000);
});
