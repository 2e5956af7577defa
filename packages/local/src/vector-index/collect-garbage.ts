import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Collect = (options?: { type: 'major' | 'minor' }) => void;

let collect: Collect | undefined;

/**
 * V8's `gc`. Node exposes it only when started with --expose-gc, so the flag is set for one new context to fetch it
 * (as jest's leak detector does), then unset.
 */
function collector(): Collect {
  if (!collect) {
    const exposed = (globalThis as { gc?: Collect }).gc;
    if (exposed) collect = exposed;
    else {
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as Collect;
      setFlagsFromString('--no-expose-gc');
    }
  }
  return collect;
}

/**
 * A full garbage collection, now. An idle server allocates almost nothing, so V8 would not collect the memory of an
 * unloaded namespace (hundreds of MB at 100k chunks) until the next load.
 */
export function collectGarbage(): void {
  collector()();
}

/** A young-generation collection (a scavenge), now: the server's idle moments (young-when-idle.ts). */
export function collectYoungGarbage(): void {
  collector()({ type: 'minor' });
}
