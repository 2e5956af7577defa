/** One timed request of round `round`: resolves to its latency in ms (and throws when it did not succeed). */
export type Sampler = (round: number) => Promise<number>;

/**
 * Runs the samplers in rounds, one request each per round, at concurrency 1, rotating which goes first so none
 * always follows the same neighbour; the first `warmup` rounds are thrown away. Samples of round i are comparable
 * across samplers (paired): they ran back to back.
 */
export async function interleaved(
  samplers: Record<string, Sampler>,
  { rounds, warmup }: { rounds: number; warmup: number },
): Promise<Record<string, number[]>> {
  const names = Object.keys(samplers);
  const samples: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < warmup + rounds; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length] as string;
      const ms = await (samplers[name] as Sampler)(round);
      if (round >= warmup) (samples[name] as number[]).push(ms);
    }
  }
  return samples;
}
