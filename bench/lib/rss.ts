import { readFileSync } from 'node:fs';
import type { ServerChild } from './server.ts';

/** A process's resident set size from /proc (Linux), in bytes; undefined elsewhere or when it is gone. */
export function processRss(pid: number): number | undefined {
  try {
    const kib = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib ? Number(kib) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

export interface RssReading {
  label: string;
  /** Bytes: one reading, or the peak of a sampled interval. */
  bytes: number;
  /** For a sampled interval: the median reading and the count. */
  medianBytes?: number;
  samples?: number;
}

/** The local server's resident set size at labelled points of the run, and sampled through each load. */
export class RssLog {
  readonly readings: RssReading[] = [];

  constructor(private readonly server: ServerChild) {}

  async record(label: string): Promise<void> {
    this.readings.push({ label, bytes: await this.server.rss() });
  }

  /** Runs `work` while reading the RSS every `everyMs`; records the peak and the median under `label`. */
  async during<T>(label: string, work: () => Promise<T>, everyMs = 100): Promise<T> {
    const values: number[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        values.push(await this.server.rss());
        await new Promise((resolve) => setTimeout(resolve, everyMs));
      }
    })();
    try {
      return await work();
    } finally {
      sampling = false;
      await sampler;
      const sorted = values.sort((a, b) => a - b);
      this.readings.push({
        label,
        bytes: sorted[sorted.length - 1] ?? Number.NaN,
        medianBytes: sorted[Math.floor(sorted.length / 2)] ?? Number.NaN,
        samples: sorted.length,
      });
    }
  }
}
