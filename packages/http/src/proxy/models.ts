import { type ChatModel, MemgateError, readBoundedText } from '@memgate/core';
import { followClient, type ProxyCall, withinTotalTime } from './call.ts';
import { forwardedHeaders } from './upstream-headers.ts';

/** When the default model list says the model was created: this process's start, as OpenAI gives no meaning to it. */
const STARTED = Math.floor(Date.now() / 1000);

/** Route B's `GET …/models` (DESIGN.md section 4): the one model it serves. */
export function listDefaultModels(defaultModelId: string) {
  return {
    object: 'list' as const,
    data: [{ id: defaultModelId, object: 'model' as const, created: STARTED, owned_by: 'memgate' }],
  };
}

/** Route A's `GET …/models`: the target's list, forwarded as it answered (status, body, the listed headers). */
export async function listTargetModels(call: ProxyCall, model: ChatModel): Promise<Response> {
  const relay = model.relay?.bind(model);
  if (!relay) throw new MemgateError('internal', 'internal_error', 'the target cannot list models');
  const upstream = followClient(call.clientSignal);
  return withinTotalTime(upstream, call.deps.settings.totalTimeoutMs, async function relayModels() {
    const raw = await relay({ method: 'GET', path: 'models' }, { signal: upstream.signal });
    return new Response(await readBoundedText(raw.body), {
      status: raw.status,
      headers: { ...forwardedHeaders(raw.headers, 'caller'), 'content-type': raw.contentType },
    });
  });
}
