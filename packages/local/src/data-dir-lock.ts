import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The file that says which process holds a DATA_DIR. */
export const LOCK_FILE = 'memgate.lock';

/** Another live process (a second `npm start`, or `npm run cleanup` beside a running server) holds the DATA_DIR. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: number,
  ) {
    super(
      `DATA_DIR ${dataDir} is in use by process ${holder} (another \`npm start\` or \`npm run cleanup\`): stop it ` +
        `first, or delete ${join(dataDir, LOCK_FILE)} if that process is not memgate`,
    );
    this.name = 'DataDirInUseError';
  }
}

/** Lock files this process holds: a second holder in the same process is refused like any other. */
const heldHere = new Set<string>();

function holderOf(path: string): number | undefined {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, owned by another user
  }
}

/**
 * Takes DATA_DIR for this process. DynamoDB Local's files and the embedded vector index (its journal, snapshots and
 * the clean-up of old generations) assume one writer: two processes on one DATA_DIR could lose acknowledged data.
 * The lock is a file holding the owner's pid, created exclusively; one left by a process that is gone (killed,
 * crashed) is taken over. The same pid in a lock this process did not take is stale too: after a container restart,
 * the new process can get its predecessor's pid.
 */
export function lockDataDir(dataDir: string): { release(): void } {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, LOCK_FILE);
  if (heldHere.has(path)) throw new DataDirInUseError(dir, process.pid);
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(path, `${process.pid}\n`, { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = holderOf(path);
      const stale = holder === undefined || holder === process.pid || !isAlive(holder);
      // Stale: remove it and try once more; if another process took it in between, it wins.
      if (!stale || attempt > 0) throw new DataDirInUseError(dir, holder ?? 0);
      rmSync(path, { force: true });
    }
  }
  heldHere.add(path);
  return {
    release() {
      if (!heldHere.delete(path)) return;
      if (holderOf(path) === process.pid) rmSync(path, { force: true });
    },
  };
}

/** Takes DATA_DIR, then starts what works in it (DynamoDB Local...); a failed start releases the lock again. */
export async function startUnderLock<T>(
  dataDir: string,
  start: () => Promise<T>,
): Promise<{ lock: { release(): void }; started: T }> {
  const lock = lockDataDir(dataDir);
  try {
    return { lock, started: await start() };
  } catch (error) {
    lock.release();
    throw error;
  }
}
