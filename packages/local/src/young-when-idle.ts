import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { getHeapSpaceStatistics } from 'node:v8';
import { collectYoungGarbage } from './vector-index/collect-garbage.ts';

/** How full V8's young generation is: its used bytes over what it holds now (it grows up to the semi-space limit). */
export function youngFullness(): number {
  for (const space of getHeapSpaceStatistics()) {
    if (space.space_name !== 'new_space') continue;
    const capacity = space.space_used_size + space.space_available_size;
    return capacity > 0 ? space.space_used_size / capacity : 0;
  }
  return 0;
}

/**
 * Collects the young generation now if it is at least `fullness` full. The proxy calls it before a request's history
 * filtering and context search (`beforeMemoryWork`): that request, which allocates most of what fills the young
 * generation (~415 KiB, a passthrough ~95), takes the scavenge (~1.5-2.5 ms on a few ms of work) at its start, where
 * a collection when idle is met by whichever request arrives next, most often a passthrough at concurrency 1 (the
 * bench's proxy area: 24-28 of 1,000 passthroughs arrived during one and waited for it). Below collectYoungWhenIdle's
 * threshold by more than a round of requests allocates, so that in a mix of both the idle one is not reached.
 */
export function collectYoungIfFull(
  fullness = 0.4,
  { read = youngFullness, collect = collectYoungGarbage }: Pick<YoungWhenIdleOptions, 'read' | 'collect'> = {},
): void {
  if (read() >= fullness) collect();
}

export interface YoungWhenIdleOptions {
  /** Collect once the young generation is at least this full when the last request in flight has ended. */
  fullness?: number;
  read?: () => number;
  collect?: () => void;
}

/**
 * Collects the young generation when the server has no request in flight and it is half full, so that V8's own
 * scavenge (when it fills, 1.5-2 ms at the bench's load) falls between requests rather than inside one. Every
 * request then finds at least half of it free: more than one request allocates (a passthrough ~95 KiB, a filtering
 * request ~415, a defaults one ~690). Each scavenge costs about what survives it, and between requests that is only
 * what the server keeps (its caches), not a request's objects in flight. A server that is never idle (a steady
 * concurrent load) is never collected here; V8 collects as before. A request that arrives during the collection waits
 * for it: with proxied requests that filter or search in the mix, collectYoungIfFull collects first, at their start.
 * Returns what stops it.
 */
export function collectYoungWhenIdle(
  server: Server,
  { fullness = 0.5, read = youngFullness, collect = collectYoungGarbage }: YoungWhenIdleOptions = {},
): () => void {
  let inFlight = 0;
  const collectIfIdle = () => {
    if (inFlight === 0 && read() >= fullness) collect();
  };
  // After the response's own callbacks (setImmediate), and again only if no request came in meanwhile.
  const ended = () => {
    inFlight--;
    if (inFlight === 0) setImmediate(collectIfIdle);
  };
  const started = (_request: IncomingMessage, response: ServerResponse) => {
    inFlight++;
    // 'close' comes once, whether the response was sent or its connection dropped first.
    response.on('close', ended);
  };
  server.on('request', started);
  return () => server.off('request', started);
}
