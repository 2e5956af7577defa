// Probes GET /health one request at a time while the load runs: a request that holds the server's event loop shows
// up as one long /health wait, whatever else is queued.

export interface HealthProbe {
  /** Stops probing; resolves with every wait, in ms, in the order measured. */
  stop(): Promise<number[]>;
}

export function startHealthProbe(url: string, pauseMs = 10): HealthProbe {
  const waits: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      try {
        const response = await fetch(`${url}/health`);
        await response.arrayBuffer();
        waits.push(performance.now() - started);
      } catch {
        waits.push(performance.now() - started);
      }
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return waits;
    },
  };
}
