// Preloaded into the load run's server child when LOAD_PROFILE_DIR is set (`node --import`): notes every stretch in
// which the event loop could not run a 10 ms timer for over 50 ms, with its end on the monotonic clock the CPU
// profile uses (µs), counted from the server's first request, so test/load/long-tasks.ts can say what ran in it. Written at exit to loop-<pid>.json.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const dir = process.env.LOAD_PROFILE_DIR;
if (dir) {
  const stalls = [];
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  // Start-up (DynamoDB Local, module loading) is not what the load run measures: stalls count from the first request.
  let firstRequestUs;
  const onRequest = () => {
    firstRequestUs = Number(process.hrtime.bigint() / 1000n);
    stalls.length = 0;
    histogram.reset();
    unsubscribe('http.server.request.start', onRequest);
  };
  subscribe('http.server.request.start', onRequest);
  let last = process.hrtime.bigint();
  const timer = setInterval(() => {
    const now = process.hrtime.bigint();
    const gapMs = Number(now - last) / 1e6;
    if (gapMs > 60) stalls.push({ endUs: Number(now / 1000n), ms: Math.round(gapMs - 10) });
    last = now;
  }, 10);
  timer.unref();
  process.on('exit', () => {
    const ms = (ns) => Math.round(ns / 1e4) / 100;
    const delay = { p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max) };
    writeFileSync(join(dir, `loop-${process.pid}.json`), JSON.stringify({ firstRequestUs, delay, stalls }));
  });
}
