/**
 * Child-process entry of the benchmark's non-streaming upstream (upstream.ts): the test suite's stub, answering
 * every request with the bench's reply, recording none. Out: `{ type: 'ready', url }`; in: `{ type: 'stop' }`.
 */
import { startUpstreamStub } from '../../test/support/upstream-stub.ts';
import { BENCH_REPLY } from './upstream.ts';

const stub = await startUpstreamStub({ behavior: { reply: BENCH_REPLY }, record: false });
const stop = () => void stub.close().finally(() => process.exit(0));
process.on('message', (message: { type?: string }) => {
  if (message.type === 'stop') stop();
});
process.on('disconnect', stop);
process.send?.({ type: 'ready', url: stub.url });
