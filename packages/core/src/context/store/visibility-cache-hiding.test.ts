import { describe, expect, it } from 'vitest';
import { chunkIdOf } from './ids.ts';
import { alice, documentAbout, embedder, ids, metadataOf, search, setup, VOUCHING_MODES } from './test-processes.ts';

// The visibility cache (issue 17) across processes: each store below stands for one process (a Lambda container,
// the local server, the cleanup CLI) with its own cache, over the same rows and vectors. Whatever one process hides
// and acknowledges, a search of another process started afterwards never returns. A delete removes vectors before it
// answers, so the tests that delete make the vector store fail to (`failing.delete`): the hits still come back from
// the index, as they do when a vector store fails midway or lags (Pinecone's deletes are eventually consistent), and
// only the rows, or the cache, decide.

describe.each(VOUCHING_MODES)('%s: what another process hides and acknowledges is never returned', (_, mode) => {
  it('a delete by document (204)', async () => {
    const s = setup(mode);
    const [searcher, deleter] = [s.process(), s.process()];
    await deleter.add(alice, {
      source: 'wiki',
      documents: [{ fileName: 'gone.txt', content: documentAbout('walrus', 2) }],
    });
    await deleter.add(alice, {
      source: 'wiki',
      documents: [{ fileName: 'kept.txt', content: documentAbout('walrus tusk') }],
    });
    expect(await search(searcher, 'walrus note')).toHaveLength(3);
    s.failing.delete = true;
    await deleter.delete(alice, { source: 'gone.txt' });
    const after = await search(searcher, 'walrus note');
    expect(after.map((hit) => hit.fileName)).toEqual(['kept.txt']);
  });

  it('a delete by id of one chunk (204): the document’s other chunks stay', async () => {
    const s = setup(mode);
    const [searcher, deleter] = [s.process(), s.process()];
    const added = await deleter.add(alice, {
      source: 'wiki',
      documents: [{ fileName: 'seals.txt', content: documentAbout('seal colony', 3) }],
    });
    const before = ids(await search(searcher, 'seal colony note'));
    expect(before).toHaveLength(3);
    const chunk = chunkIdOf(added.contextIds[0] as string, 1);
    expect(before).toContain(chunk);
    s.failing.delete = true;
    await deleter.delete(alice, { source: chunk, by_id: true });
    expect(ids(await search(searcher, 'seal colony note'))).toEqual(before.filter((id) => id !== chunk));
  });

  it('a re-add: while another process replaces a document, its old version is not shown (as a row read says)', async () => {
    const s = setup(mode);
    const searcher = s.process();
    const seen: string[][] = [];
    // The re-adding process: just before its document becomes `indexed` again, the searcher searches.
    const readder = s.process({
      wrap: (repository) => ({
        ...repository,
        transition: async (list, from, to, fingerprints) => {
          if (to === 'indexed') seen.push(ids(await search(searcher, 'narwhal note')));
          return repository.transition(list, from, to, fingerprints);
        },
      }),
    });
    const documents = [{ fileName: 'narwhal.txt', content: documentAbout('narwhal', 2) }];
    await searcher.add(alice, { source: 'wiki', documents });
    expect(await search(searcher, 'narwhal note')).toHaveLength(2);
    // A re-add that changes the document (its tags): an identical one writes nothing (fingerprint.ts).
    await readder.add(alice, { source: 'wiki', documents, tags: ['marine'] });
    expect(seen).toEqual([[]]);
    expect(await search(searcher, 'narwhal note')).toHaveLength(2);
  });

  it('a re-add that fails after hiding the chunks its new version no longer has: they are not shown', async () => {
    const s = setup(mode);
    const searcher = s.process();
    const documents = [{ fileName: 'otter.txt', content: documentAbout('otter', 2) }];
    const { contextIds } = await searcher.add(alice, { source: 'wiki', documents });
    const documentId = contextIds[0] as string;
    // An older chunking gave this document a third chunk, still listed, with its row and vector.
    const old = structuredClone(s.memory.rows.get(chunkIdOf(documentId, 1)));
    if (!old) throw new Error('no chunk row');
    const extraId = chunkIdOf(documentId, 2);
    const extra = { ...old, _id: extraId, corresponding_vector_id: extraId, text: 'otter note old' };
    s.memory.rows.set(extra._id, extra);
    const documentRow = s.memory.rows.get(documentId);
    documentRow?.children_context_nodes.push(extra._id);
    // Written by that older version: its fingerprint is not this version's.
    if (documentRow) documentRow.fingerprint = 'older chunking';
    const [vector] = await embedder.embed([extra.text], 'document');
    await s.index.upsert('user:alice', [
      {
        id: extra._id,
        values: vector as Float32Array,
        metadata: { ...metadataOf(documentId), fileName: 'otter.txt' },
        text: extra.text,
      },
    ]);
    expect(ids(await search(searcher, 'otter note old'))).toContain(extra._id);
    // Another process re-adds it and fails on claiming the document, after hiding the extra chunk.
    const failing = s.process({
      wrap: (repository) => ({
        ...repository,
        putMany: async (records) => {
          if (records.some((record) => record.kind === 'document')) throw new Error('injected claim failure');
          return repository.putMany(records);
        },
      }),
    });
    await expect(failing.add(alice, { source: 'wiki', documents })).rejects.toThrow('injected claim failure');
    expect(s.memory.rows.get(extra._id)?.status).toBe('deleting');
    expect(ids(await search(searcher, 'otter note old'))).not.toContain(extra._id);
  });

  it('a delete whose bump failed after hiding answers an error; retried, its 204 holds for every cache', async () => {
    const s = setup(mode);
    const searcher = s.process();
    let bumpFails = true;
    const deleter = s.process({
      wrap: (repository) => ({
        ...repository,
        bumpGenerations: async (tenants) => {
          if (bumpFails) throw new Error('injected bump failure');
          return repository.bumpGenerations(tenants);
        },
      }),
    });
    await searcher.add(alice, {
      source: 'wiki',
      documents: [{ fileName: 'puffin.txt', content: documentAbout('puffin') }],
    });
    expect(await search(searcher, 'puffin note')).toHaveLength(1);
    s.failing.delete = true;
    await expect(deleter.delete(alice, { source: 'puffin.txt' })).rejects.toThrow('injected bump failure');
    bumpFails = false;
    // The document is already `deleting`: the retry moves nothing, and must still bump before its 204.
    await deleter.delete(alice, { source: 'puffin.txt' });
    expect(await search(searcher, 'puffin note')).toEqual([]);
  });

  it('a delete whose bump failed after hiding: the cleanup finishing it bumps, and no cache shows it after', async () => {
    const s = setup(mode);
    const searcher = s.process();
    const deleter = s.process({
      wrap: (repository) => ({
        ...repository,
        bumpGenerations: async () => {
          throw new Error('injected bump failure');
        },
      }),
    });
    const { contextIds } = await searcher.add(alice, {
      source: 'wiki',
      documents: [{ fileName: 'tern.txt', content: documentAbout('tern') }],
    });
    expect(await search(searcher, 'tern note')).toHaveLength(1);
    s.failing.delete = true;
    await expect(deleter.delete(alice, { source: 'tern.txt' })).rejects.toThrow('injected bump failure');
    // The cleanup bumps, then fails to remove the vectors too: the hit still comes back from the index.
    await s.cleanup();
    expect(s.memory.rows.get(contextIds[0] as string)?.status).toBe('deleting');
    expect(await search(searcher, 'tern note')).toEqual([]);
  });

  it.each([
    ['answers', false],
    ['is written but its answer is lost (a timeout after DynamoDB applied it)', true],
  ])(
    'a removal that hides a re-added document again (its vectors could not be given back) bumps, when the move to pending %s',
    async (_, answerLost) => {
      const s = setup(mode);
      const searcher = s.process();
      const documents = [{ fileName: 'skua.txt', content: documentAbout('skua', 2) }];
      const readder = s.process();
      // The deleting process's vector store acknowledges the deletion but still answers with the vectors (Pinecone's
      // deletes are eventually consistent). Meanwhile the document is added again, and searched (its new version
      // cached); then giving its vectors back fails, and the removal hides it again as `pending`.
      const deleter = s.process({
        wrap: (repository) => ({
          ...repository,
          transition: async (ids, from, to, fingerprints) => {
            const moved = await repository.transition(ids, from, to, fingerprints);
            if (answerLost && to === 'pending' && s.failing.upsert) throw new Error('socket hang up');
            return moved;
          },
        }),
        wrapIndex: (index) => ({
          ...index,
          delete: async () => {
            await readder.add(alice, { source: 'wiki', documents });
            expect(await search(searcher, 'skua note')).toHaveLength(2);
            s.failing.upsert = true;
          },
        }),
      });
      await searcher.add(alice, { source: 'wiki', documents });
      expect(await search(searcher, 'skua note')).toHaveLength(2);
      await deleter.delete(alice, { source: 'skua.txt' });
      const documentId = [...s.memory.rows.values()].find((row) => row.kind === 'document')?._id as string;
      expect(s.memory.rows.get(documentId)?.status).toBe('pending');
      expect(await search(searcher, 'skua note')).toEqual([]);
    },
  );

  it('a row read just before another process hides it is never shown once that hide answered', async () => {
    const s = setup(mode);
    const deleter = s.process();
    let hideAfterRead = true;
    // The searcher reads its generation tag, then the rows; right after that read, another process deletes (hides
    // and bumps) before the searcher caches or confirms what the rows said.
    const searcher = s.process({
      wrap: (repository) => ({
        ...repository,
        getForSearch: async (ids) => {
          const records = await repository.getForSearch(ids);
          if (hideAfterRead) {
            hideAfterRead = false;
            await deleter.delete(alice, { source: 'petrel.txt' });
          }
          return records;
        },
      }),
    });
    await deleter.add(alice, {
      source: 'wiki',
      documents: [{ fileName: 'petrel.txt', content: documentAbout('petrel', 2) }],
    });
    await s.memory.repository.bumpGenerations(['user:alice']); // what the add confirmed no longer holds: rows are read
    s.failing.delete = true;
    // Started before the delete answered: it may show what its rows said.
    expect(await search(searcher, 'petrel note')).toHaveLength(2);
    expect(hideAfterRead).toBe(false);
    expect(await search(searcher, 'petrel note')).toEqual([]);
  });

  it('across organizations: a delete in one hides only its records, the others are still found', async () => {
    const s = setup(mode);
    const [searcher, deleter] = [s.process(), s.process()];
    for (const [organization_id, fileName] of [
      ['acme', 'acme.txt'],
      ['beta', 'beta.txt'],
      [undefined, 'own.txt'],
    ] as const) {
      await deleter.add(alice, {
        source: 'wiki',
        ...(organization_id ? { organization_id } : {}),
        documents: [{ fileName, content: documentAbout(`gannet ${fileName}`) }],
      });
    }
    const names = async () => (await search(searcher, 'gannet note')).map((hit) => hit.fileName).sort();
    const kept = (await search(searcher, 'gannet note')).filter((hit) => hit.fileName !== 'beta.txt');
    expect(await names()).toEqual(['acme.txt', 'beta.txt', 'own.txt']);
    s.failing.delete = true;
    await deleter.delete(alice, { source: 'beta.txt', organization_id: 'beta' });
    expect(await names()).toEqual(['acme.txt', 'own.txt']);
    // Only beta's generation moved: acme's and alice's own chunks come from the cache, no row of theirs is read.
    s.rowsRead.length = 0;
    expect(await names()).toEqual(['acme.txt', 'own.txt']);
    expect(s.rowsRead.flat()).not.toContain(kept[0]?.contextId);
    expect(s.rowsRead.flat()).not.toContain(kept[1]?.contextId);
    expect(kept).toHaveLength(2);
  });
});
