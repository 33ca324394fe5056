import {
  MemoryService,
  type MemoryStore,
  RevisionNotVisibleError,
  StoreUnavailableError,
} from '@powercontext/memory-core';
import { createFakeEmbedder, InMemoryMemoryStore } from '@powercontext/memory-core/testing';
import { createRrfRetrievalPolicy } from '@powercontext/retrieval-rrf';
import { describe, expect, it } from 'vitest';
import { ReplicatedStore, type ReplicatedStoreOptions } from './replicated-store.js';

/** A primary at revision 2 of scope "s" and a replica that has replayed revision 1 only. */
async function setUp(options: Partial<ReplicatedStoreOptions> = {}) {
  const embedder = createFakeEmbedder();
  const retrievalPolicy = createRrfRetrievalPolicy();
  const primary = new InMemoryMemoryStore();
  const replica = new InMemoryMemoryStore();
  for (const store of [primary, replica]) await store.prepareEmbeddingProfile(embedder.profile);
  const onPrimary = new MemoryService({ store: primary, embedder, retrievalPolicy });
  const onReplica = new MemoryService({ store: replica, embedder, retrievalPolicy });
  await onPrimary.remember('s', { entries: [{ text: 'first note about harbours' }] });
  await onReplica.remember('s', { entries: [{ text: 'first note about harbours' }] });
  await onPrimary.remember('s', { entries: [{ text: 'second note about harbours' }] });
  const down: string[] = [];
  const replicated = new ReplicatedStore({
    primary,
    replicas: [{ name: 'replica-1', store: replica }],
    minRevisionWaitMs: 60,
    minRevisionFallback: 'wait',
    onReplicaDown: (name) => down.push(name),
    ...options,
  });
  const service = new MemoryService({ store: replicated.store, embedder, retrievalPolicy });
  const search = (minRevision?: number) =>
    replicated.read('s', minRevision, () => service.search('s', { query: 'note harbours', mode: 'fts' }));
  return { replicated, service, search, down, embedder, retrievalPolicy };
}

describe('ReplicatedStore', () => {
  it('reads the replica without min_revision, at the revision it has', async () => {
    const { search } = await setUp();
    const { value, servedBy } = await search();
    expect(servedBy).toEqual({ kind: 'replica', name: 'replica-1' });
    expect(value.memory?.revision).toBe(1);
    expect(value.hits.map((hit) => hit.text)).toEqual(['first note about harbours']);
  });

  it('with min_revision the replica has, reads the replica; one it lacks: waits, then the primary', async () => {
    const { search } = await setUp();
    expect((await search(1)).servedBy.kind).toBe('replica');
    const began = performance.now();
    const fresh = await search(2);
    expect(performance.now() - began).toBeGreaterThanOrEqual(55);
    expect(fresh.servedBy).toEqual({ kind: 'primary' });
    expect(fresh.value.memory?.revision).toBe(2);
    expect(fresh.value.hits).toHaveLength(2);
  });

  it('fallback primary goes at once; fallback error refuses with revision_not_visible', async () => {
    const atOnce = await setUp({ minRevisionFallback: 'primary', minRevisionWaitMs: 5_000 });
    const began = performance.now();
    expect((await atOnce.search(2)).servedBy.kind).toBe('primary');
    expect(performance.now() - began).toBeLessThan(1_000);
    const refusing = await setUp({ minRevisionFallback: 'error' });
    const refused = refusing.search(2);
    await expect(refused).rejects.toBeInstanceOf(RevisionNotVisibleError);
    await expect(refused).rejects.toMatchObject({
      code: 'revision_not_visible',
      retryable: true,
      visibleRevision: 1,
    });
  });

  it('serves a read of several scopes from a replica only when it has every scope’s min revision', async () => {
    const { replicated, service } = await setUp({ minRevisionFallback: 'error' });
    // Scope "t" exists on the primary only: no replica has its revision 1.
    await service.remember('t', { entries: [{ text: 'a note about piers' }] });
    const both = () => service.searchScopes(['s', 't'], { query: 'note', mode: 'fts' });
    const onReplica = await replicated.readScopes([{ scopeId: 's', minRevision: 1 }, { scopeId: 't' }], both);
    expect(onReplica.servedBy).toEqual({ kind: 'replica', name: 'replica-1' });
    expect(onReplica.value.scopes.map((scope) => scope.memory?.revision)).toEqual([1, undefined]);
    await expect(
      replicated.readScopes(
        [
          { scopeId: 's', minRevision: 1 },
          { scopeId: 't', minRevision: 1 },
        ],
        both,
      ),
    ).rejects.toMatchObject({
      code: 'revision_not_visible',
      scopeId: 't',
      minRevision: 1,
      visibleRevision: 0,
    });
  });

  it('refuses a revision that even the primary does not have', async () => {
    const { search } = await setUp();
    await expect(search(3)).rejects.toMatchObject({ code: 'revision_not_visible', visibleRevision: 2 });
  });

  it('keeps a read on its replica when its work first waits for something else (a search lane)', async () => {
    const { replicated, service } = await setUp();
    // The lane is handed over from another async context, as the server's SearchLanes does.
    let open: () => void = () => {};
    const lane = new Promise<void>((resolve) => {
      open = resolve;
    });
    const reading = replicated.read('s', 1, async () => {
      await lane;
      return service.search('s', { query: 'note harbours', mode: 'fts' });
    });
    setTimeout(open, 10);
    const { value, servedBy } = await reading;
    expect(servedBy).toEqual({ kind: 'replica', name: 'replica-1' });
    expect(value.memory?.revision).toBe(1);
  });

  it('writes, and reads outside read(), go to the primary', async () => {
    const { replicated, service } = await setUp();
    expect((await replicated.store.head('s'))?.revision).toBe(2);
    const written = await service.remember('s', { entries: [{ text: 'third note' }] });
    expect(written.memory.revision).toBe(3);
  });

  it('skips a replica that is down, reports it once, and the primary serves', async () => {
    const embedder = createFakeEmbedder();
    const retrievalPolicy = createRrfRetrievalPolicy();
    const primary = new InMemoryMemoryStore();
    await primary.prepareEmbeddingProfile(embedder.profile);
    await new MemoryService({ store: primary, embedder, retrievalPolicy }).remember('s', {
      entries: [{ text: 'note on the primary' }],
    });
    const broken = new Proxy(primary, {
      get: (target, property) =>
        typeof Reflect.get(target, property) === 'function'
          ? () => Promise.reject(new StoreUnavailableError('The database is unavailable'))
          : Reflect.get(target, property),
    }) as MemoryStore;
    const down: string[] = [];
    const replicated = new ReplicatedStore({
      primary,
      replicas: [{ name: 'dead', store: broken }],
      minRevisionWaitMs: 50,
      minRevisionFallback: 'error',
      onReplicaDown: (name) => down.push(name),
    });
    const service = new MemoryService({ store: replicated.store, embedder, retrievalPolicy });
    const search = (minRevision?: number) =>
      replicated.read('s', minRevision, () => service.search('s', { query: 'note', mode: 'fts' }));
    // Without min_revision the read starts on the replica, fails there, and moves to the primary.
    const first = await search();
    expect(first.value.hits.map((hit) => hit.text)).toEqual(['note on the primary']);
    // Marked down: later reads, with min_revision too, go to the primary without trying it.
    expect((await search(1)).servedBy).toEqual({ kind: 'primary' });
    expect(down).toEqual(['dead']);
    expect((await replicated.lag())[0]).toMatchObject({ name: 'dead', down: true });
  });
});
