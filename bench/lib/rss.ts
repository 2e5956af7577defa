import { readFileSync } from 'node:fs';
import type { MemoryBreakdown, ServerChild } from './server.ts';

const MIB = 1024 * 1024;

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

/**
 * V8's heap (resident, by space, with what is used of it), array buffers (typed arrays' memory: the index's vectors
 * and postings) and the rest of the RSS (native: the HNSW graphs, Node and its modules' code, malloc's free memory).
 */
export function describeMemory(memory: MemoryBreakdown): string {
  const mib = (bytes: number) => Math.round(bytes / MIB);
  const heap = Object.values(memory.spaces).reduce((sum, space) => sum + space.size, 0);
  const spaces = Object.entries(memory.spaces)
    .filter(([, space]) => space.size >= MIB)
    .map(([name, space]) => `${name} ${mib(space.size)} (${mib(space.used)} used)`)
    .join(', ');
  const rest = memory.rss - heap - memory.arrayBuffers;
  return `RSS ${mib(memory.rss)} MiB = V8 heap ${mib(heap)} (${spaces}) + array buffers ${mib(memory.arrayBuffers)} + the rest ${mib(rest)}`;
}
