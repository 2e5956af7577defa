import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | undefined;

/**
 * A full garbage collection, now. Node exposes `gc` only when started with --expose-gc, so the flag is set for one
 * new context to fetch it (as jest's leak detector does), then unset. An idle server allocates almost nothing, so
 * V8 would not collect the memory of an unloaded namespace (hundreds of MB at 100k chunks) until the next load.
 */
export function collectGarbage(): void {
  if (!collect) {
    const exposed = (globalThis as { gc?: () => void }).gc;
    if (exposed) collect = exposed;
    else {
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as () => void;
      setFlagsFromString('--no-expose-gc');
    }
  }
  collect();
}
