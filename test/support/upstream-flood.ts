import type { ServerResponse } from 'node:http';

/** An upstream answer far larger than any real one, written only as fast as the connection takes it. */
export interface FloodBehavior {
  /** Body bytes to send in all. */
  bytes: number;
}

/** What the last flood did: how much the connection took, and whether the writer stalls (backpressure). */
export interface FloodWatch {
  /** Bytes the last flooding answer handed to its socket so far. */
  readonly written: number;
  /** Resolves once the writer has waited `quietMs` for the connection to drain, or once the flood is all written. */
  nextStall(quietMs?: number): Promise<{ written: number; finished: boolean }>;
}

const PIECE_BYTES = 64 * 1024;

export function createFloodWriter() {
  let written = 0;
  let finished = false;
  let waiting = false;
  const watchers: { quietMs: number; resolve: (state: { written: number; finished: boolean }) => void }[] = [];
  let stallTimers: NodeJS.Timeout[] = [];

  function settle(): void {
    for (const watcher of watchers.splice(0)) watcher.resolve({ written, finished });
    for (const timer of stallTimers.splice(0)) clearTimeout(timer);
  }

  function armStallTimers(): void {
    stallTimers = watchers.map((watcher) =>
      setTimeout(() => {
        if (waiting) settle();
      }, watcher.quietMs),
    );
  }

  const watch: FloodWatch = {
    get written() {
      return written;
    },
    nextStall(quietMs = 500) {
      return new Promise((resolve) => {
        watchers.push({ quietMs, resolve });
        if (waiting) armStallTimers();
      });
    },
  };

  /** Writes `flood.bytes`: SSE chunk events when `sse`, else one endless JSON completion. */
  async function write(res: ServerResponse, flood: FloodBehavior, sse: boolean, gone: () => boolean): Promise<void> {
    written = 0;
    finished = false;
    res.writeHead(200, { 'content-type': sse ? 'text/event-stream' : 'application/json' });
    const filler = 'x'.repeat(PIECE_BYTES - 100);
    const piece = Buffer.from(
      sse
        ? `data: {"choices":[{"index":0,"delta":{"content":"${filler}"}}]}\n\n`
        : `${filler}`.padEnd(PIECE_BYTES, 'x'),
    );
    if (!sse) res.write('{"choices":[{"index":0,"message":{"role":"assistant","content":"');
    while (written < flood.bytes && !gone()) {
      written += piece.byteLength;
      if (res.write(piece)) continue;
      waiting = true;
      armStallTimers();
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
      waiting = false;
      for (const timer of stallTimers.splice(0)) clearTimeout(timer);
    }
    if (gone()) return;
    res.end(sse ? 'data: [DONE]\n\n' : '"}}]}');
    finished = true;
    settle();
  }

  return { watch, write };
}
