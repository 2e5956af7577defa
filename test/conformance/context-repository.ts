import { describe } from 'vitest';
import { type RepositoryFactory, readConformance } from './context-repository-reads.ts';
import { writeConformance } from './context-repository-writes.ts';

/** The ContextRepository port's contract, run by every adapter. Each test uses fresh tenants and owners. */
export function contextRepositoryConformance(name: string, factory: RepositoryFactory) {
  describe(`ContextRepository conformance: ${name}`, () => {
    readConformance(factory);
    writeConformance(factory);
  });
}
