import { createHash } from 'node:crypto';
import {
  type AddInput,
  cutWhole,
  MAX_DOCUMENT_CHARS,
  MAX_DOCUMENTS,
  MemgateError,
  type Principal,
} from '@memgate/core';
import type { Logger } from '../observability/logger.ts';
import { type BatchQueue, type BatchTiming, createBatchQueue, DEFAULT_BATCH_TIMING } from './capture-queue.ts';
import type { Exchange } from './context.ts';
import type { ProxyAreaDeps } from './deps.ts';
import { createBackgroundWork } from './deps.ts';

/**
 * One accepted exchange: who asked, the context it was given (`sources`) and its text. Nothing else of the request:
 * its messages must not stay in memory while the capture waits for its batch.
 */
interface Capture {
  principal: Principal;
  sources: readonly string[];
  content: string;
}

/**
 * An exchange's file name, from what it holds: the same exchange again is the same document (an add is idempotent
 * by owner, organization, source, name and content). Named by time, a question asked five times was five records,
 * and they filled every injected slot, pushing out the document that answers it. Hashed when the batch is stored,
 * off the response's path (an exchange may be a megabyte).
 */
function exchangeFileName(content: string): string {
  return `conversation-${createHash('sha256').update(content).digest('hex').slice(0, 16)}.txt`;
}

/** How a failed store is retried (as the adapters retry a failed HTTP call: exponential backoff, full jitter). */
export interface CaptureRetry {
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/**
 * DESIGN.md section 4: the stored reply is cut here, so a long answer never grows the capture without bound. The
 * replies' collectors stop near it (forward.ts); the capture cuts it between characters (cutWhole).
 */
export const MAX_CAPTURED_REPLY_CHARS = 100_000;

/** Characters of a stored exchange besides the question and the reply ("User: ", "\n\nAssistant: "). */
const EXCHANGE_LABEL_CHARS = 'User: \n\nAssistant: '.length;

const DEFAULT_RETRY: CaptureRetry = { attempts: 4, baseDelayMs: 250, maxDelayMs: 4_000 };

type Place = { organization_id: string | null };

/**
 * Where a captured exchange may be stored (DESIGN.md section 4: captured exchanges follow their sources). Context
 * from one organization: in that organization, owned by the caller, so it leaves with the caller's membership and
 * goes with the organization's records. Context from several organizations, or from records gone (or not the
 * caller's) by the time it is stored: nowhere, since no one place may hold all of it. Otherwise: the caller's own.
 */
async function placeOf(deps: ProxyAreaDeps, principal: Principal, sources: string[]): Promise<Place | undefined> {
  if (sources.length === 0) return { organization_id: null };
  const { organizations, unknown } = await deps.contextStore.originsOf(principal, sources);
  if (unknown > 0 || organizations.length > 1) return undefined;
  return { organization_id: organizations[0] ?? null };
}

/** The same caller as far as an add can tell: user, memberships and scopes. */
const callerKey = (principal: Principal) =>
  JSON.stringify([principal.userId, [...principal.orgs].sort(), [...principal.scopes].sort()]);

/** Infrastructure failures are worth another try; a refusal (validation, permission) would only be refused again. */
const retryable = (error: unknown) => !(error instanceof MemgateError) || error.kind === 'internal';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface ExchangeStore {
  /** Stores the exchange as a `conversation` record after the response, never delaying it. */
  capture(principal: Principal, exchange: Exchange, reply: string): void;
  /** Back-pressure: resolves once held exchanges leave room (a request that will capture waits for it first). */
  room(): Promise<void>;
}

/**
 * Captured exchanges, stored in batches off the requests' path (capture-queue.ts): the exchanges of one caller
 * bound for one place go into one add (`separateDocuments`: each keeps the lexical context it would have alone),
 * at most MAX_DOCUMENTS at a time. A failed add is retried with backoff; what still fails is logged, never thrown.
 */
export function createExchangeStore(
  deps: ProxyAreaDeps,
  logger: Logger,
  { timing = DEFAULT_BATCH_TIMING, retry = DEFAULT_RETRY }: { timing?: BatchTiming; retry?: CaptureRetry } = {},
): ExchangeStore {
  const background =
    deps.background ??
    createBackgroundWork((error) =>
      logger.error('proxy could not store the exchange', {
        error: error instanceof Error ? error.message : String(error),
      }),
    );

  /** Adds with retries; resolves with the last error when it still failed (already logged unless refused). */
  async function addWithRetry(principal: Principal, input: AddInput): Promise<unknown> {
    for (let attempt = 1; ; attempt++) {
      try {
        await deps.contextStore.add(principal, input);
        return undefined;
      } catch (error) {
        if (!retryable(error)) return error;
        if (attempt >= retry.attempts) {
          logger.error('proxy could not store the exchange', {
            error: error instanceof Error ? error.message : String(error),
            exchanges: input.documents.length,
            attempts: attempt,
          });
          return error;
        }
        const ceiling = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1));
        await pause(Math.random() * ceiling);
      }
    }
  }

  /** One add for the group; when the add refuses it (one exchange too long...), each exchange alone. */
  async function storeGroup(principal: Principal, input: AddInput): Promise<void> {
    const error = await addWithRetry(principal, input);
    if (error === undefined || retryable(error)) return;
    if (input.documents.length === 1) {
      logger.error('proxy could not store the exchange', {
        error: error instanceof Error ? error.message : String(error),
      });
      return;
    }
    for (const document of input.documents) await storeGroup(principal, { ...input, documents: [document] });
  }

  async function storeBatch(batch: Capture[]): Promise<void> {
    // One read of origins per caller and set of sources: a caller asking again usually got the same context.
    const places = new Map<string, Promise<Place | undefined>>();
    const groups = new Map<string, { principal: Principal; place: Place; captures: Capture[] }>();
    for (const capture of batch) {
      const caller = callerKey(capture.principal);
      const sources = [...new Set(capture.sources)].sort();
      const key = JSON.stringify([caller, sources]);
      let place = places.get(key);
      if (!place) {
        place = placeOf(deps, capture.principal, sources);
        places.set(key, place);
      }
      const found = await place.catch((error: unknown) => {
        logger.error('proxy could not store the exchange', {
          error: `reading where its context came from failed: ${error instanceof Error ? error.message : String(error)}`,
        });
        return undefined;
      });
      if (!found) {
        if (sources.length > 0) {
          logger.info('proxy exchange not stored: its context came from more than one place', {
            sources: sources.length,
          });
        }
        continue;
      }
      const group = JSON.stringify([caller, found.organization_id]);
      const entry = groups.get(group) ?? { principal: capture.principal, place: found, captures: [] };
      entry.captures.push(capture);
      groups.set(group, entry);
    }
    for (const { principal, place, captures } of groups.values()) {
      for (let start = 0; start < captures.length; start += MAX_DOCUMENTS) {
        const documents = captures.slice(start, start + MAX_DOCUMENTS).map(({ content }) => ({
          content,
          fileName: exchangeFileName(content),
          fileType: 'text/plain',
        }));
        await storeGroup(principal, {
          documents,
          ...place,
          context_type: 'conversation',
          scope: 'internal',
          source: 'memgate-proxy',
          separateDocuments: true,
        });
      }
    }
  }

  const queue: BatchQueue<Capture> = createBatchQueue({
    background,
    store: storeBatch,
    sizeOf: (capture) => capture.content.length,
    timing,
  });
  return {
    capture(principal, exchange, reply) {
      const { question, sources } = exchange;
      if (question.trim() === '' || reply.trim() === '') return;
      // An add takes at most MAX_DOCUMENT_CHARS a document: a longer question is cut (the reply is, at 100,000
      // characters) rather than the whole exchange refused and lost. Both between characters: a halved emoji at the
      // cut would be stored as a lone surrogate, shown as U+FFFD.
      const kept = cutWhole(reply, MAX_CAPTURED_REPLY_CHARS);
      const room = MAX_DOCUMENT_CHARS - kept.length - EXCHANGE_LABEL_CHARS;
      queue.accept({ principal, sources, content: `User: ${cutWhole(question, room)}\n\nAssistant: ${kept}` });
    },
    room: () => queue.room(),
  };
}
