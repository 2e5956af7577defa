#!/usr/bin/env node
// Records other platforms' native packages in package-lock.json.
//
// This machine's npm registry mirror serves only the native packages of its own
// platform (linux x64 glibc). `npm install` then writes a lock without the other
// platforms' optional packages (biome's, rollup's), and `npm ci` refuses that lock
// as out of sync. Each missing package is recorded with its version and the
// platform it is for, so `npm ci` accepts the lock and skips it as incompatible
// without fetching it. Run after every `npm install` that rewrites the lock:
//   node scripts/lock-foreign-platforms.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const LOCK = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(LOCK, 'utf8'));
const packages = lock.packages;

/** Platform fields from a native package's name suffix (e.g. `linux-arm64-musl`). */
function platformOf(suffix) {
  const parts = suffix.split('-');
  const os = parts[0];
  const cpu = parts[1] === 'arm' ? 'arm' : parts[1];
  const libcPart = parts[2];
  const entry = { os: [os], cpu: [cpu] };
  if (os === 'linux') {
    entry.libc = [libcPart?.startsWith('musl') ? 'musl' : 'glibc'];
  }
  return entry;
}

/** Parents whose optional dependencies are per-platform native packages. */
const FAMILIES = [
  { parent: 'node_modules/@biomejs/biome', prefix: '@biomejs/cli-' },
  { parent: 'node_modules/rollup', prefix: '@rollup/rollup-' },
];

let added = 0;
for (const { parent, prefix } of FAMILIES) {
  const owner = packages[parent];
  if (!owner) continue;
  for (const [name, version] of Object.entries(owner.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    if (!name.startsWith(prefix) || packages[key]) continue;
    packages[key] = {
      version,
      ...platformOf(name.slice(prefix.length)),
      dev: owner.dev === true ? true : undefined,
      optional: true,
    };
    added += 1;
  }
}

const sorted = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
lock.packages = sorted;
writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: ${added} foreign-platform entries recorded`);
