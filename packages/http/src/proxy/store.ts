import type { Principal } from '@memgate/core';
import type { Logger } from '../observability/logger.ts';
import type { Exchange } from './context.ts';
import type { ProxyAreaDeps } from './deps.ts';
import { createBackgroundWork } from './deps.ts';

/**
 * Where a captured exchange may be stored (DESIGN.md section 4: captured exchanges follow their sources). Context
 * from one organization: in that organization, owned by the caller, so it leaves with the caller's membership and
 * goes with the organization's records. Context from several organizations, or from records gone (or not the
 * caller's) by the time it is stored: nowhere, since no one place may hold all of it. Otherwise: the caller's own.
 */
async function placeOf(
  deps: ProxyAreaDeps,
  principal: Principal,
  exchange: Exchange,
): Promise<{ organization_id: string | null } | undefined> {
  if (exchange.sources.length === 0) return { organization_id: null };
  const { organizations, unknown } = await deps.contextStore.originsOf(principal, exchange.sources);
  if (unknown > 0 || organizations.length > 1) return undefined;
  return { organization_id: organizations[0] ?? null };
}

/** Stores the exchange as a `conversation` record after the response, never delaying it. */
export function createExchangeStore(deps: ProxyAreaDeps, logger: Logger) {
  const background =
    deps.background ??
    createBackgroundWork((error) =>
      logger.error('proxy could not store the exchange', {
        error: error instanceof Error ? error.message : String(error),
      }),
    );
  return function storeExchange(principal: Principal, exchange: Exchange, reply: string): void {
    const { question } = exchange;
    if (question.trim() === '' || reply.trim() === '') return;
    background.run(async () => {
      const place = await placeOf(deps, principal, exchange);
      if (!place) {
        logger.info('proxy exchange not stored: its context came from more than one place', {
          sources: exchange.sources.length,
        });
        return;
      }
      await deps.contextStore.add(principal, {
        documents: [
          {
            content: `User: ${question}\n\nAssistant: ${reply}`,
            fileName: `conversation-${new Date().toISOString()}.txt`,
            fileType: 'text/plain',
          },
        ],
        ...place,
        context_type: 'conversation',
        scope: 'internal',
        source: 'memgate-proxy',
      });
    });
  };
}
