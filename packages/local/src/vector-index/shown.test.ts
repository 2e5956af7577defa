import { appendFileSync, closeSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { VectorItem } from '@memgate/core';
import { createTimeSlice } from '@memgate/core/history/time-slice';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { axisVector, metadataFor } from '../../../../test/conformance/vector-index.ts';
import { collectGarbage } from './collect-garbage.ts';
import { forEachLine } from './durable-files.ts';
import type { LocalVectorIndex } from './index.ts';
import { ShownTexts } from './shown.ts';
import { closeOpenedIndexes, freshDir, openIndex } from './test-indexes.ts';

afterEach(async () => {
  vi.useRealTimers();
  await closeOpenedIndexes();
});

// The embedded index's texts and confirmations (shown.ts) are as durable as its vectors: a confirmation survives a
// crash, a restart and an unload, and so does the upsert or delete that cleared it.

const item = (id: string, axis: number, text: string): VectorItem => ({
  id,
  values: axisVector(16, axis),
  metadata: metadataFor(),
  text,
});
const confirmedOf = async (index: LocalVectorIndex) => {
  const matches = await index.query('user:u1', { vector: axisVector(16, 0), topK: 10 });
  return Object.fromEntries(matches.map((match) => [match.id, match.confirmed?.tag]));
};

describe('local vector index: confirmations on disk', () => {
  it('survive a crash (no close) and a restart, as do the upserts and deletes that cleared them', async () => {
    const dir = freshDir();
    const first = await openIndex(dir);
    await first.upsert('user:u1', [item('a', 0, 'alpha'), item('b', 1, 'beta'), item('c', 2, 'gamma')]);
    await first.confirm('user:u1', [
      { id: 'a', text: 'alpha', tag: 'e:1' },
      { id: 'b', text: 'beta', tag: 'e:1' },
      { id: 'c', text: 'gamma', tag: 'e:1' },
    ]);
    await first.upsert('user:u1', [item('b', 1, 'beta')]); // cleared
    await first.delete('user:u1', ['c']);
    const crashed = await openIndex(dir); // the first never closed: its journals are replayed
    expect(await confirmedOf(crashed)).toEqual({ a: 'e:1', b: undefined });
    await crashed.confirm('user:u1', [{ id: 'b', text: 'beta', tag: 'e:2' }]);
    await crashed.close();
    const restarted = await openIndex(dir);
    expect(await confirmedOf(restarted)).toEqual({ a: 'e:1', b: 'e:2' });
  });

  it('drops a torn last record, which never returned to its caller', async () => {
    const dir = freshDir();
    const index = await openIndex(dir);
    await index.upsert('user:u1', [item('a', 0, 'alpha')]);
    await index.confirm('user:u1', [{ id: 'a', text: 'alpha', tag: 'e:1' }]);
    const [nsDir] = readdirSync(dir);
    const log = join(dir, nsDir as string, 'shown-0.log');
    const whole = readFileSync(log).length;
    appendFileSync(log, '["confirm",[["a","e:9"'); // a write cut short
    const reopened = await openIndex(dir);
    expect(await confirmedOf(reopened)).toEqual({ a: 'e:1' });
    expect(readFileSync(log).length).toBe(whole);
    await reopened.confirm('user:u1', [{ id: 'a', text: 'alpha', tag: 'e:2' }]);
    expect(await confirmedOf(await openIndex(dir))).toEqual({ a: 'e:2' });
  });

  it('compacts its file once it is twice what it holds, keeping the same state', async () => {
    const dir = freshDir();
    const shown = await ShownTexts.open(dir, { minCompactBytes: 1_000 });
    shown.put([item('a', 0, 'alpha'), item('b', 1, 'beta')]);
    for (let i = 0; i < 200; i++) shown.confirm([{ id: 'a', text: 'alpha', tag: `e:${i}` }]);
    shown.remove(['b']);
    expect(shown.fileBytes).toBeLessThan(1_500);
    expect(readdirSync(dir).sort()).toEqual([expect.stringMatching(/^shown-[1-9]\d*\.log$/), 'shown.json']);
    shown.close();
    const reopened = await ShownTexts.open(dir);
    expect(reopened.confirmedOf('a')).toEqual({ text: 'alpha', tag: 'e:199' });
    expect(reopened.confirmedOf('b')).toBeUndefined();
    reopened.close();
  });

  it('reads texts back from disk exactly, any characters, across appends, compactions and a reopen', async () => {
    const dir = freshDir();
    const texts = [
      'plain',
      'quote " and \\ backslash',
      'line\nbreak\ttab',
      'été — naïve',
      'emoji 🦜 and 中文',
      '\u0000',
    ];
    const shown = await ShownTexts.open(dir, { minCompactBytes: 2_000 });
    for (let round = 0; round < 30; round++) {
      shown.put(texts.map((text, i) => item(`t${i}`, i, `${text} ${round}`)));
      shown.confirm(texts.map((text, i) => ({ id: `t${i}`, text: `${text} ${round}`, tag: `e:${round}` })));
    }
    const expected = texts.map((text) => ({ text: `${text} 29`, tag: 'e:29' }));
    expect(texts.map((_, i) => shown.confirmedOf(`t${i}`))).toEqual(expected);
    shown.close();
    const reopened = await ShownTexts.open(dir);
    expect(texts.map((_, i) => reopened.confirmedOf(`t${i}`))).toEqual(expected);
    reopened.close();
  });

  it('drops them with an idle namespace and has them again when it is loaded', async () => {
    vi.useFakeTimers();
    const index = await openIndex(freshDir(), undefined, { unloadIdleAfterMs: 60_000 });
    await index.upsert('user:u1', [item('a', 0, 'alpha'), item('b', 1, 'beta')]);
    await index.confirm('user:u1', [{ id: 'a', text: 'alpha', tag: 'e:1' }]);
    vi.advanceTimersByTime(120_000);
    expect(index.loadedNamespaces()).toEqual([]);
    expect(await confirmedOf(index)).toEqual({ a: 'e:1', b: undefined });
    await index.upsert('user:u1', [item('a', 0, 'alpha')]);
    vi.advanceTimersByTime(120_000);
    expect(index.loadedNamespaces()).toEqual([]);
    expect(await confirmedOf(index)).toEqual({ a: undefined, b: undefined });
  });
});

describe('local vector index: reading the shown texts back', () => {
  it('reads a file line by line through a small buffer: lines longer than it, characters cut across reads, a torn end', async () => {
    const lines = ['short', 'x'.repeat(50), '', 'émoji 🦜 中文 across reads', 'y'.repeat(9)];
    const path = join(freshDir(), 'lines.log');
    writeFileSync(path, `${lines.join('\n')}\n["torn`);
    const fd = openSync(path, 'r');
    const seen: [string, number][] = [];
    const end = await forEachLine(fd, (line, at) => seen.push([line.toString('utf8'), at]), createTimeSlice(), 7);
    closeSync(fd);
    let at = 0;
    const expected = lines.map((line): [string, number] => {
      const start = at;
      at += Buffer.byteLength(line) + 1;
      return [line, start];
    });
    expect(seen).toEqual(expected);
    expect(end).toBe(at);
  });

  it('never holds the whole file in memory while loading it (~110 MB at 100k chunks)', async () => {
    const dir = freshDir();
    const writer = await ShownTexts.open(dir);
    const text = 'the quarterly invoice was paid and the refund went out on Monday '.repeat(16);
    for (let batch = 0; batch < 32; batch++) {
      writer.put(Array.from({ length: 1000 }, (_, i) => item(`c${batch}-${i}`, 0, `${text}${batch}-${i}`)));
    }
    writer.close();
    expect(writer.fileBytes).toBeGreaterThan(32 * 1024 * 1024);
    collectGarbage();
    const before = process.memoryUsage().arrayBuffers;
    let most = 0;
    const parse = JSON.parse;
    // Sampled at each line read (one put of 1,000 texts, ~1 MiB): what the reading holds besides that line.
    const spy = vi.spyOn(JSON, 'parse').mockImplementation((line: string) => {
      collectGarbage(); // what is still held, not what awaits collection
      most = Math.max(most, process.memoryUsage().arrayBuffers - before);
      return parse(line);
    });
    try {
      (await ShownTexts.open(dir)).close();
    } finally {
      spy.mockRestore();
    }
    const reopened = await ShownTexts.open(dir);
    expect(reopened.confirmedOf('c31-999')).toBeUndefined(); // never confirmed
    reopened.confirm([{ id: 'c31-999', text: `${text}31-999`, tag: 'e:1' }]);
    expect(reopened.confirmedOf('c31-999')).toEqual({ text: `${text}31-999`, tag: 'e:1' });
    reopened.close();
    // A line, its copies while parsed, and the previous ones while their memory is being freed: not the file's 33 MiB.
    expect(most / 2 ** 20).toBeLessThan(16);
  });
});
