import { type ChatModel, invalid, MemgateError, readBoundedText } from '@memgate/core';
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
export function listTargetModels(call: ProxyCall, model: ChatModel): Promise<Response> {
  return relayModels(call, model, 'models');
}

/** Route B's `GET …/models/{id}`: the default model when `id` names it, else OpenAI's 404 for an unknown model. */
export function retrieveDefaultModel(defaultModelId: string, rawId: string) {
  const id = decodedModelId(rawId);
  const [model] = listDefaultModels(defaultModelId).data;
  if (id === defaultModelId && model) return model;
  throw new MemgateError(
    'not_found',
    'model_not_found',
    `The model '${id.slice(0, 200)}' does not exist: this route serves ${defaultModelId}`,
  );
}

/**
 * Route A's `GET …/models/{id}`: the target's answer, as for the list. The id goes as the caller wrote it (its
 * encoding too); one that would leave `/models/` once the target's URL is resolved (`..`) is refused.
 */
export function retrieveTargetModel(call: ProxyCall, model: ChatModel, rawId: string): Promise<Response> {
  decodedModelId(rawId);
  return relayModels(call, model, `models/${rawId}`);
}

/** A model id from the path, decoded; a `.` or `..` segment, or bad percent-encoding, is a 400. */
function decodedModelId(rawId: string): string {
  let id: string;
  try {
    id = decodeURIComponent(rawId);
  } catch {
    throw invalid('the model id is not valid percent-encoding', 'model');
  }
  if (id.split('/').some((segment) => segment === '.' || segment === '..')) {
    throw invalid("a model id has no '.' or '..' segment", 'model');
  }
  return id;
}

async function relayModels(call: ProxyCall, model: ChatModel, path: 'models' | `models/${string}`): Promise<Response> {
  const relay = model.relay?.bind(model);
  if (!relay) throw new MemgateError('internal', 'internal_error', 'the target cannot list models');
  const upstream = followClient(call.clientSignal);
  return withinTotalTime(upstream, call.deps.settings.totalTimeoutMs, async function relayModels() {
    const raw = await relay({ method: 'GET', path }, { signal: upstream.signal });
    return new Response(await readBoundedText(raw.body), {
      status: raw.status,
      headers: { ...forwardedHeaders(raw.headers, 'caller'), 'content-type': raw.contentType },
    });
  });
}
