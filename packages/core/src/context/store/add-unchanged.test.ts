import { describe, expect, it } from 'vitest';
import type { VectorIndex } from '../ports.ts';
import { alice, documentAbout, ids, search, setup } from './test-processes.ts';

// An add of a document stored whole by an add of exactly the same writes nothing (fingerprint.ts, issue 17); what
// it must still do: repair what an interrupted add left, and never trust a fingerprint that concurrent writers, the
// cleanup or a removal made untrue.

const documents = [{ fileName: 'puffin.txt', content: documentAbout('puffin', 3) }];
const tagged = (tag: string) => ({ source: 'wiki', documents, tags: [tag] });

/** Counts the vectors a process upserts. */
function countingUpserts() {
  const counted = { vectors: 0 };
  const wrapIndex = (index: VectorIndex): VectorIndex => ({
    ...index,
    upsert: (namespace, items) => {
      counted.vectors += items.length;
      return index.upsert(namespace, items);
    },
  });
  return { counted, wrapIndex };
}

/** The tags each chunk of alice's document carries: in its row and in its vector. */
function storedTags(s: ReturnType<typeof setup>, documentId: string) {
  const document = s.memory.rows.get(documentId);
  return (document?.children_context_nodes ?? []).map((id) => ({
    row: s.memory.rows.get(id)?.tags,
    vector: s.shared.namespaces.get('user:alice')?.get(id)?.metadata.tags,
  }));
}

describe('an unchanged re-add writes nothing, and still repairs and replaces', () => {
  it('writes no row and no vector; answers as the first add did; the document stays whole', async () => {
    const s = setup();
    const first = await s.process().add(alice, tagged('a'));
    const shown = ids(await search(s.process(), 'puffin note'));
    const { counted, wrapIndex } = countingUpserts();
    let writes = 0;
    const again = await s
      .process({
        wrapIndex,
        wrap: (repository) => ({
          ...repository,
          putMany: (records) => {
            writes += records.length;
            return repository.putMany(records);
          },
          createMany: (records) => {
            writes += records.length;
            return repository.createMany(records);
          },
          transition: (list, from, to, fingerprints) => {
            writes += list.length;
            return repository.transition(list, from, to, fingerprints);
          },
        }),
      })
      .add(alice, tagged('a'));
    expect(again).toEqual(first);
    expect({ writes, vectors: counted.vectors }).toEqual({ writes: 0, vectors: 0 });
    expect(ids(await search(s.process(), 'puffin note'))).toEqual(shown);
  });

  it('a re-add after the cleanup finished an interrupted one writes it again (the cleanup built its vectors)', async () => {
    const s = setup();
    const [documentId] = (await s.process().add(alice, tagged('a'))).contextIds;
    s.failing.upsert = true;
    await expect(s.process().add(alice, tagged('b'))).rejects.toThrow();
    s.failing.upsert = false;
    expect(s.memory.rows.get(documentId as string)?.status).toBe('pending');
    // The same add again repairs it at once.
    const { counted, wrapIndex } = countingUpserts();
    await s.process({ wrapIndex }).add(alice, tagged('b'));
    expect(counted.vectors).toBe(3);
    expect(ids(await search(s.process(), 'puffin note', { metadata: { tags: 'b' } }))).toHaveLength(3);

    // Interrupted again, and this time the cleanup finishes it from the rows.
    s.failing.upsert = true;
    await expect(s.process().add(alice, tagged('c'))).rejects.toThrow();
    s.failing.upsert = false;
    await s.cleanup();
    expect(s.memory.rows.get(documentId as string)?.status).toBe('indexed');
    const after = countingUpserts();
    await s.process({ wrapIndex: after.wrapIndex }).add(alice, tagged('c'));
    expect(after.counted.vectors).toBe(3);
  });

  it('two re-adds with different tags at once: the one that wrote last leaves no fingerprint; the next is whole', async () => {
    const s = setup();
    const [documentId] = (await s.process().add(alice, tagged('a'))).contextIds;
    // Re-add 'b' claims the document, then waits before its chunk rows while re-add 'c' claims, writes and settles.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let claimed = () => {};
    const claim = new Promise<void>((resolve) => {
      claimed = resolve;
    });
    const slow = s.process({
      wrap: (repository) => ({
        ...repository,
        putMany: async (records) => {
          if (records.some((record) => record.kind === 'chunk')) {
            claimed();
            await held;
          }
          return repository.putMany(records);
        },
      }),
    });
    const late = slow.add(alice, tagged('b'));
    await claim;
    await s.process().add(alice, tagged('c'));
    release();
    await late;
    // The slow add's rows and vectors landed last: the document row's own add ('c') is not what is stored.
    expect(storedTags(s, documentId as string)).toEqual(Array(3).fill({ row: ['b'], vector: ['b'] }));
    expect(s.memory.rows.get(documentId as string)?.fingerprint).toBeUndefined();
    // So adding 'c' again writes it whole, and what search filters on says 'c'.
    await s.process().add(alice, tagged('c'));
    expect(storedTags(s, documentId as string)).toEqual(Array(3).fill({ row: ['c'], vector: ['c'] }));
    expect(ids(await search(s.process(), 'puffin note', { metadata: { tags: 'c' } }))).toHaveLength(3);
  });

  it('a delete right after an unchanged re-add read the document: the delete wins, nothing shows', async () => {
    const s = setup();
    await s.process().add(alice, tagged('a'));
    const deleter = s.process();
    const readder = s.process({
      wrap: (repository) => ({
        ...repository,
        getMany: async (list) => {
          const read = await repository.getMany(list);
          await deleter.delete(alice, { source: 'wiki' });
          return read;
        },
        getManyWithGenerations: async (list, tenants) => {
          const read = await repository.getManyWithGenerations(list, tenants);
          await deleter.delete(alice, { source: 'wiki' });
          return read;
        },
      }),
    });
    await readder.add(alice, tagged('a'));
    expect(await search(s.process(), 'puffin note')).toEqual([]);
    expect((await s.process().view(alice, {})).items).toEqual([]);
  });

  it('an unchanged re-add after a delete adds the document back whole', async () => {
    const s = setup();
    await s.process().add(alice, tagged('a'));
    await s.process().delete(alice, { source: 'wiki' });
    expect(await search(s.process(), 'puffin note')).toEqual([]);
    await s.process().add(alice, tagged('a'));
    expect(ids(await search(s.process(), 'puffin note'))).toHaveLength(3);
  });

  it("a removal that gives back vectors a re-add wrote meanwhile: the document's next re-add writes them again", async () => {
    const s = setup();
    const [documentId] = (await s.process().add(alice, tagged('a'))).contextIds;
    const readder = s.process();
    let readded = false;
    // The delete's removal deletes the vectors; right then the same document is added again, whole, before the
    // removal reads the rows again and gives back, from the rows, the vectors it took.
    const deleter = s.process({
      wrapIndex: (index) => ({
        ...index,
        delete: async (namespace, list) => {
          await index.delete(namespace, list);
          if (readded) return;
          readded = true;
          await readder.add(alice, tagged('a'));
        },
      }),
    });
    await deleter.delete(alice, { source: 'wiki' });
    expect(readded).toBe(true);
    expect(ids(await search(s.process(), 'puffin note'))).toHaveLength(3);
    expect(s.memory.rows.get(documentId as string)?.fingerprint).toBeUndefined();
    const { counted, wrapIndex } = countingUpserts();
    await s.process({ wrapIndex }).add(alice, tagged('a'));
    expect(counted.vectors).toBe(3);
  });
});
