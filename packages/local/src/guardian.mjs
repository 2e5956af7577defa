// Kills a child (DynamoDB Local's java) once its parent is gone, even when the parent died by SIGKILL.
// Started detached by dynamo-local.ts: `node guardian.mjs <parentPid> <childPid>`.
const [parentPid, childPid] = process.argv.slice(2).map(Number);

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const timer = setInterval(() => {
  if (!alive(childPid)) process.exit(0);
  if (!alive(parentPid)) {
    try {
      process.kill(childPid, 'SIGKILL');
    } catch {}
    process.exit(0);
  }
}, 300);
timer.unref?.();
setInterval(() => {}, 1 << 30);
