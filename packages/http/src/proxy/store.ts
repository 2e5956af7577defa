import type { Principal } from '@memgate/core';
import type { Logger } from '../observability/logger.ts';
import type { ProxyAreaDeps } from './deps.ts';
import { createBackgroundWork } from './deps.ts';

/** Stores the exchange as a `conversation` record after the response, never delaying it. */
export function createExchangeStore(deps: ProxyAreaDeps, logger: Logger) {
  const background =
    deps.background ??
    createBackgroundWork((error) =>
      logger.error('proxy could not store the exchange', {
        error: error instanceof Error ? error.message : String(error),
      }),
    );
  return function storeExchange(principal: Principal, question: string, reply: string): void {
    if (question.trim() === '' || reply.trim() === '') return;
    background.run(() =>
      deps.contextStore.add(principal, {
        documents: [
          {
            content: `User: ${question}\n\nAssistant: ${reply}`,
            fileName: `conversation-${new Date().toISOString()}.txt`,
            fileType: 'text/plain',
          },
        ],
        context_type: 'conversation',
        scope: 'internal',
        source: 'memgate-proxy',
      }),
    );
  };
}
