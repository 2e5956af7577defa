import {
  type ChatCompletionRequest,
  type ChatModel,
  type ContextStore,
  createChatService,
  type SearchHit,
} from '@memgate/core';
import { createMemorySessionRepository } from './memory-sessions.ts';

/** A search hit of passage `n` of document `documentId`. */
export const hitOf = (documentId: string, n: number): SearchHit => ({
  contextId: `${documentId}-c${n}`,
  contextData: `passage ${n} of ${documentId}`,
  score: 0.9 - n / 10,
  documentId,
  fileName: `${documentId}.md`,
  source: 's',
});

/** A context store whose search answers `hits` and records each query; the chat uses nothing else. */
export function contextStoreWith(hits: SearchHit[]): ContextStore & { queries: unknown[] } {
  const queries: unknown[] = [];
  const unused = () => Promise.reject(new Error('not used by the chat'));
  return {
    queries,
    search: async (_principal, input) => {
      queries.push(input);
      return hits;
    },
    add: unused,
    delete: unused,
    view: unused,
    viewDocs: unused,
    originsOf: unused,
  };
}

/** One chat.completion.chunk payload as a ChatModel streams it. */
export const chunkOf = (delta: Record<string, unknown>) =>
  JSON.stringify({
    id: 'c',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'fake/model',
    choices: [{ index: 0, delta, finish_reason: null }],
  });

export type ScriptedModel = ChatModel & { requests: ChatCompletionRequest[]; signals: AbortSignal[] };

/**
 * A model that streams `pieces` as content, then the raw payloads in `extra`; `afterwards` runs after (e.g. to throw or to
 * wait for an abort).
 */
export function scriptedModel(
  pieces: string[] = ['The answer', ' is 42.'],
  { extra = [], afterwards }: { extra?: string[]; afterwards?: (signal: AbortSignal) => Promise<void> } = {},
): ScriptedModel {
  const requests: ChatCompletionRequest[] = [];
  const signals: AbortSignal[] = [];
  return {
    id: 'fake/model',
    requests,
    signals,
    complete: () => Promise.reject(new Error('the chat streams')),
    async *stream(request, { signal }) {
      requests.push(request);
      const live = signal ?? new AbortController().signal;
      signals.push(live);
      for (const piece of pieces) yield chunkOf({ content: piece });
      yield* extra;
      await afterwards?.(live);
    },
  };
}

/** Resolves when `signal` aborts (a model call cut short by a disconnect). */
export const abortOf = (signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });

/** A chat service on in-memory sessions, the given hits and model, and a fixed clock. */
export function fakeChat({ hits = [hitOf('a', 1), hitOf('a', 2), hitOf('b', 1)], model = scriptedModel() } = {}) {
  const sessions = createMemorySessionRepository();
  const contextStore = contextStoreWith(hits);
  const clock = { now: () => new Date('2030-01-01T00:00:00.000Z') };
  let n = 0;
  const service = createChatService({ sessions, contextStore, model, clock, ttlDays: 30, ids: () => `id-${++n}` });
  return { service, sessions, contextStore, model, clock };
}
