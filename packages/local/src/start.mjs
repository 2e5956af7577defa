// `npm start`: the local server (main.ts, through tsx) in a child process whose environment carries the settings
// below, which glibc reads only when a process starts. Plain JavaScript, so that starting it loads nothing else.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * glibc malloc: an allocation of 64 KiB or more gets its own mapping, returned to the system when it is freed. By
 * default glibc raises that threshold up to 32 MiB as large blocks are freed, after which such blocks (a namespace's
 * postings and scratch arrays, request buffers) come from its heaps, which keep what is freed: the server's RSS stayed
 * ~135 MiB above its start after every tenant was unloaded, ~55 MiB with this (bench/OVER-BUDGET.md, "Server RSS").
 * Ignored where the C library is not glibc.
 */
export const MALLOC_SETTINGS = { MALLOC_MMAP_THRESHOLD_: '65536' };

/** The server process's environment: `env`, with the allocator settings it does not set itself. */
export function serverEnvironment(env) {
  return { ...MALLOC_SETTINGS, ...env };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const main = fileURLToPath(new URL('./main.ts', import.meta.url));
  const server = spawn(process.execPath, ['--import', 'tsx', main, ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: serverEnvironment(process.env),
  });
  // Ctrl-C reaches both processes; a `kill` of this one is passed on. The server's shutdown runs once either way.
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
  server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
