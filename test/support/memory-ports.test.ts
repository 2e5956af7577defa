import { randomUUID } from 'node:crypto';
import { confirmingIndexConformance } from '../conformance/confirming-index.ts';
import { contextRepositoryConformance } from '../conformance/context-repository.ts';
import { expiringItemsConformance } from '../conformance/expiring-items.ts';
import { sessionFor, sessionRepositoryConformance } from '../conformance/session-repository.ts';
import { vectorIndexConformance } from '../conformance/vector-index.ts';
import { createFailingIndex } from './context-fakes.ts';
import { createMemoryIndex, createMemoryRepository, createMemorySessions } from './memory-ports.ts';
import { createMemorySessionRepository } from './memory-sessions.ts';

// The in-memory doubles the core's tests run on claim the real adapters' semantics: they are held to the same
// port contracts, so a test that passes on a double means what it would mean on DynamoDB, Pinecone or usearch.

const clock = { now: () => new Date() };

contextRepositoryConformance('in-memory (test double)', () => createMemoryRepository(clock).repository);
vectorIndexConformance('in-memory (test double)', () => createMemoryIndex().index);
confirmingIndexConformance('in-memory (test double)', () => createMemoryIndex().index);
vectorIndexConformance(
  'failure-injecting wrapper, not failing',
  () => createFailingIndex(createMemoryIndex().index).index,
);

const sessionRepository = createMemorySessionRepository();
sessionRepositoryConformance('in-memory (test double)', async () => sessionRepository);
expiringItemsConformance('in-memory session repository (test double)', async () => ({
  items: sessionRepository,
  async store(expiresAt) {
    const session = sessionFor({ expiresAt });
    await sessionRepository.putSession(session);
    return `chat#${session.chatId}`;
  },
}));

const expiring = createMemorySessions();
expiringItemsConformance("the cleanup tests' expiring items (test double)", async () => ({
  items: expiring.sessions,
  async store(expiresAt) {
    const id = `item-${randomUUID()}`;
    expiring.expiries.set(id, expiresAt);
    return id;
  },
}));
