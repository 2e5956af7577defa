import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  os: string;
  node: string;
  java: string;
  /** 1-minute load average when the run started: other work on the machine shows up here. */
  loadAverage: number;
  commit: string;
  /** True when the working tree had uncommitted changes (the figures then describe them too). */
  dirty: boolean;
}

function run(command: string, args: string[]): string {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.error || result.status !== 0) return 'unknown';
  return result.stdout.trim();
}

/** `java -version` prints to stderr: `openjdk version "17.0.15" 2025-04-15`. */
function javaVersion(): string {
  const result = spawnSync('java', ['-version'], { encoding: 'utf8' });
  const line = (result.stderr ?? '').split('\n')[0] ?? '';
  return /version "([^"]+)"/.exec(line)?.[1] ?? 'unknown';
}

function cpuModel(): string {
  const model = os.cpus()[0]?.model?.trim();
  if (model) return model;
  try {
    return /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** What the figures were measured on. */
export function describeMachine(): Machine {
  return {
    cpu: cpuModel(),
    cores: os.availableParallelism(),
    memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    os: `${os.type()} ${os.release()} (${os.arch()})`,
    node: process.version,
    java: javaVersion(),
    loadAverage: Math.round((os.loadavg()[0] ?? 0) * 100) / 100,
    commit: run('git', ['rev-parse', '--short', 'HEAD']),
    dirty: run('git', ['status', '--porcelain', '--untracked-files=no']) !== '',
  };
}
