import { describe, expect, it } from 'vitest';
import { BestFirst } from './best-first.ts';

const drain = (order: BestFirst) => {
  const taken: number[] = [];
  for (let slot = order.next(); slot >= 0; slot = order.next()) taken.push(slot);
  return taken;
};

describe('BestFirst', () => {
  it('gives slots by falling score, equal scores in their given order, as a stable sort would', () => {
    const score = new Float64Array(64);
    const open: number[] = [];
    for (let slot = 0; slot < 64; slot++) {
      score[slot] = Math.floor(((slot * 37) % 64) / 8) / 8; // 8 distinct scores, 8 slots each
      open.push((slot * 13) % 64);
    }
    const stable = [...open].sort((a, b) => (score[b] as number) - (score[a] as number));
    expect(drain(new BestFirst(open, score))).toEqual(stable);
  });

  it('yields nothing for no candidates, and a lone one once', () => {
    expect(drain(new BestFirst([], new Float64Array(1)))).toEqual([]);
    expect(drain(new BestFirst([3], new Float64Array(4)))).toEqual([3]);
  });
});
