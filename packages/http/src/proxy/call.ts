import { type ChatCompletionRequest, type ChatModel, MemgateError, type Principal } from '@memgate/core';
import type { BaseDeps } from '../deps.ts';
import type { Exchange, Switches } from './context.ts';
import type { ProxyAreaDeps } from './deps.ts';
import type { SseResponder } from './sse-response.ts';

/** One proxied request, whatever its endpoint: who asks, with which switches, and how to store the exchange. */
export interface ProxyCall {
  deps: BaseDeps & ProxyAreaDeps;
  principal: Principal;
  switches: Switches;
  /** Aborted when the client disconnects. */
  clientSignal: AbortSignal;
  /** How a forwarded stream is answered (on the local server: written to the Node response directly). */
  respondSse: SseResponder;
  /**
   * Stores the exchange after the response (a no-op when `x-memgate-store: off`): the question and the context
   * injected for it (where the exchange is stored follows that context, DESIGN.md section 4).
   */
  capture(exchange: Exchange, reply: string): void;
}

/** Route B serves one model id (DESIGN.md section 4). */
export function requireDefaultModel(model: string, defaultModelId: string): void {
  if (model !== defaultModelId) {
    throw new MemgateError(
      'validation',
      'invalid_request',
      `unknown model; this route serves model "${defaultModelId}"`,
      {
        field: 'model',
      },
    );
  }
}

/**
 * Asks the model whether it can honour the request before anything is answered; `fieldOf` renames a refused field
 * to the one the caller sent (the Responses API names them differently).
 */
export function checkModelCanServe(
  model: ChatModel,
  request: ChatCompletionRequest,
  fieldOf: Record<string, string> = {},
): void {
  try {
    model.check?.(request);
  } catch (error) {
    if (!(error instanceof MemgateError) || !error.field || !fieldOf[error.field]) throw error;
    const field = fieldOf[error.field] as string;
    throw new MemgateError(error.kind, error.code, error.message, { field });
  }
}

/** The answer to a call still unfinished at PROXY_TOTAL_TIMEOUT_MS (DESIGN.md section 4): 504 upstream_timeout. */
export function overallTimeout(maxDurationMs: number): MemgateError {
  const seconds = Math.round(maxDurationMs / 1000);
  return new MemgateError('upstream_timeout', 'upstream_timeout', `upstream did not finish within ${seconds} s`);
}

/**
 * Runs `work` (an upstream call and the reading of its answer) within the whole call's time limit: past it the
 * upstream call is aborted and the caller gets 504 upstream_timeout, rather than waiting on an upstream that sent
 * its headers and then stalled (the headers alone are bounded by PROXY_UPSTREAM_TIMEOUT_MS).
 */
export async function withinTotalTime<T>(
  upstream: AbortController,
  maxDurationMs: number,
  work: () => Promise<T>,
): Promise<T> {
  let timedOut = false;
  const deadline = setTimeout(() => {
    timedOut = true;
    upstream.abort();
  }, maxDurationMs);
  try {
    return await work();
  } catch (error) {
    if (timedOut) throw overallTimeout(maxDurationMs);
    throw error;
  } finally {
    clearTimeout(deadline);
  }
}

/** An AbortController that follows the client: a disconnect aborts the model call. */
export function followClient(clientSignal: AbortSignal): AbortController {
  const upstream = new AbortController();
  clientSignal.addEventListener('abort', () => upstream.abort(), { once: true });
  return upstream;
}
