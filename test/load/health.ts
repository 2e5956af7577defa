import { Worker } from 'node:worker_threads';

// Probes GET /health at a fixed rate from a worker thread while the load runs: the probe has its own event loop, so
// the load runner's own work never delays it, and a probe is sent every `intervalMs` whether or not the last one has
// come back, so a server that holds its event loop for a second shows a second's worth of slow probes (p99), not one.

export interface HealthProbe {
  /** Stops probing; resolves with every probe's wait in ms (failed probes count as Infinity). */
  stop(): Promise<number[]>;
}

const PROBE = `
const { parentPort, workerData } = require('node:worker_threads');
const waits = [];
const inFlight = new Set();
const timer = setInterval(() => {
  const started = performance.now();
  const probe = fetch(workerData.url + '/health')
    .then((response) => response.arrayBuffer())
    .then(() => waits.push(performance.now() - started), () => waits.push(Infinity))
    .finally(() => inFlight.delete(probe));
  inFlight.add(probe);
}, workerData.intervalMs);
parentPort.once('message', async () => {
  clearInterval(timer);
  await Promise.allSettled([...inFlight]);
  parentPort.postMessage(waits);
});
`;

export function startHealthProbe(url: string, intervalMs = 20): HealthProbe {
  const worker = new Worker(PROBE, { eval: true, workerData: { url, intervalMs } });
  return {
    async stop() {
      const waits = new Promise<number[]>((resolve) => worker.once('message', resolve));
      worker.postMessage('stop');
      const result = await waits;
      await worker.terminate();
      return result;
    },
  };
}
