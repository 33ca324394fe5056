import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { contentHash } from '../domain/content-hash.js';
import { PLAIN_LEXICAL_PROJECTION } from '../domain/lexical-projection.js';
import type { MemoryStore } from '../ports/memory-store.port.js';
import { MemoryService, type MemoryServiceOptions } from '../service/memory-service.js';
import { createFakeEmbedder } from './fake-embedder.js';
import { noSearchPolicy } from './no-search-policy.js';

const RETENTION_MS = 60_000;

/**
 * Idempotent writes (RFC 0005, "Idempotent writes"), part of the MemoryStore contract: a write with
 * an idempotency key records its result in its own transaction; a repeat answers with that result and
 * writes nothing; the key is refused for another request; keys are per scope and per owner (the
 * caller's identity, when it gives one), and expire.
 */
export function describeIdempotencyContract(getStore: () => MemoryStore) {
  describe('idempotent writes', () => {
    const scope = () => `idempotency-${randomUUID()}`;
    /** A clock that starts at the real time (other tests' records must not expire) and moves on demand. */
    const testClock = () => {
      let now = Date.now();
      return {
        now: () => new Date(now),
        advance: (ms: number) => {
          now += ms;
        },
      };
    };
    const serviceWith = (options: Partial<MemoryServiceOptions> = {}) =>
      new MemoryService({
        store: getStore(),
        embedder: createFakeEmbedder(),
        retrievalPolicy: noSearchPolicy,
        idempotencyRetentionMs: RETENTION_MS,
        ...options,
      });

    it('answers a repeated keyed remember with the first result and writes nothing', async () => {
      const service = serviceWith();
      const scopeId = scope();
      const entries = Array.from({ length: 5 }, (_, i) => ({ text: `keyed entry ${i}`, metadata: { i } }));
      const first = await service.remember(scopeId, { entries }, { idempotencyKey: 'remember-1' });
      expect(first.replayed).toBeUndefined();
      expect(first.memory.revision).toBe(1);
      // The canonical request: defaults spelled out and another key order ask for the same write.
      const spelled = entries.map(({ text, metadata }) => ({ metadata, sources: [], kind: 'note', text }));
      for (const again of [entries, spelled]) {
        const repeated = await service.remember(
          scopeId,
          { entries: again },
          { idempotencyKey: 'remember-1' },
        );
        expect(repeated).toEqual({ ...first, replayed: true });
      }
      expect((await getStore().head(scopeId))?.revision).toBe(1);
      const changes = await service.changes(scopeId, {});
      expect(changes.changes).toHaveLength(5);
      // Without a key the same request is a new write, found as duplicates of the active entries.
      const plain = await service.remember(scopeId, { entries });
      expect(plain.entries.map((entry) => entry.status)).toEqual(Array(5).fill('duplicate'));
    });

    it('refuses the key for another request with idempotency_key_reused, and writes nothing', async () => {
      const service = serviceWith();
      const scopeId = scope();
      const first = await service.remember(
        scopeId,
        { entries: [{ text: 'the original' }] },
        { idempotencyKey: 'reused' },
      );
      const entryId = first.entries[0]!.entryId;
      const others: [string, () => Promise<unknown>][] = [
        [
          'another body',
          () => service.remember(scopeId, { entries: [{ text: 'another' }] }, { idempotencyKey: 'reused' }),
        ],
        ['another operation', () => service.forget(scopeId, { entryId }, { idempotencyKey: 'reused' })],
        [
          'another kind',
          () =>
            service.remember(
              scopeId,
              { entries: [{ text: 'the original', kind: 'fact' }] },
              { idempotencyKey: 'reused' },
            ),
        ],
      ];
      for (const [what, attempt] of others) {
        await expect(attempt(), what).rejects.toMatchObject({
          code: 'idempotency_key_reused',
          retryable: false,
          idempotencyKey: 'reused',
        });
      }
      expect((await getStore().head(scopeId))?.revision).toBe(1);
      expect((await service.list(scopeId, {})).entries.map((entry) => entry.text)).toEqual(['the original']);
    });

    it('keeps keys per scope', async () => {
      const service = serviceWith();
      const [one, two] = [scope(), scope()];
      const request = { entries: [{ text: 'same words in two scopes' }] };
      const inOne = await service.remember(one, request, { idempotencyKey: 'shared-key' });
      const inTwo = await service.remember(two, request, { idempotencyKey: 'shared-key' });
      expect(inTwo.replayed).toBeUndefined();
      expect(inTwo.memory.scopeId).toBe(two);
      expect(inTwo.entries[0]!.entryId).not.toBe(inOne.entries[0]!.entryId);
      await expect(
        service.forget(two, { entryId: inTwo.entries[0]!.entryId }, { idempotencyKey: 'other-key' }),
      ).resolves.toMatchObject({ status: 'created' });
      await expect(
        service.forget(one, { entryId: inOne.entries[0]!.entryId }, { idempotencyKey: 'other-key' }),
      ).resolves.toMatchObject({ status: 'created', memory: { scopeId: one, revision: 2 } });
    });

    it('keeps keys per owner: another owner’s write with the same key is its own, neither replayed nor refused', async () => {
      const service = serviceWith();
      const scopeId = scope();
      const key = { idempotencyKey: 'shared-by-chance' };
      const byA = { ...key, idempotencyOwner: 'key-a' };
      const byB = { ...key, idempotencyOwner: 'key-b' };
      const aRequest = { entries: [{ text: 'written by the first owner' }] };
      const bRequest = { entries: [{ text: 'written by the second owner' }] };
      const first = await service.remember(scopeId, aRequest, byA);
      // Another body under another owner: its own write, not idempotency_key_reused.
      const second = await service.remember(scopeId, bRequest, byB);
      expect(second.replayed).toBeUndefined();
      expect(second).toMatchObject({ memory: { revision: 2 }, entries: [{ status: 'created' }] });
      expect(second.entries[0]!.entryId).not.toBe(first.entries[0]!.entryId);
      // The first owner's body under a third owner: not the first owner's stored answer either.
      const third = await service.remember(scopeId, aRequest, { ...key, idempotencyOwner: 'key-c' });
      expect(third.replayed).toBeUndefined();
      // (A remember of duplicates only writes no revision.)
      expect(third).toMatchObject({ memory: { revision: 2 }, entries: [{ status: 'duplicate' }] });
      // Without an owner the key is the scope's own namespace, apart from every owner's.
      const unowned = await service.remember(scopeId, { entries: [{ text: 'written without owner' }] }, key);
      expect(unowned).toMatchObject({ memory: { revision: 3 }, entries: [{ status: 'created' }] });
      // Each owner replays its own first answer, and is refused another body.
      await expect(service.remember(scopeId, aRequest, byA)).resolves.toEqual({ ...first, replayed: true });
      await expect(service.remember(scopeId, bRequest, byB)).resolves.toEqual({ ...second, replayed: true });
      await expect(service.remember(scopeId, bRequest, byA)).rejects.toMatchObject({
        code: 'idempotency_key_reused',
      });
      expect((await getStore().head(scopeId))?.revision).toBe(3);
      // A purge erases the stored answers that name the entry, whoever's they were.
      await service.purge(scopeId, { entryId: first.entries[0]!.entryId });
      const rewritten = await service.remember(scopeId, aRequest, byA);
      expect(rewritten.replayed).toBeUndefined();
      expect(rewritten).toMatchObject({ memory: { revision: 5 }, entries: [{ status: 'created' }] });
      await expect(service.remember(scopeId, bRequest, byB)).resolves.toEqual({ ...second, replayed: true });
    });

    it('checks the owner: 1-255 characters, named idempotencyOwner', async () => {
      const service = serviceWith();
      const scopeId = scope();
      const bad: [string, string][] = [
        ['', 'idempotencyOwner must be at least 1 character'],
        ['o'.repeat(256), 'idempotencyOwner must be at most 255 characters'],
      ];
      for (const [owner, rule] of bad) {
        await expect(
          service.remember(
            scopeId,
            { entries: [{ text: 'x' }] },
            { idempotencyKey: 'owned', idempotencyOwner: owner },
          ),
        ).rejects.toMatchObject({ code: 'invalid_request', issues: [{ field: 'idempotencyOwner', rule }] });
      }
      expect(await getStore().head(scopeId)).toBeUndefined();
    });

    it('replays revise, forget and reactivate, unchanged answers included, whatever happened since', async () => {
      const service = serviceWith();
      const scopeId = scope();
      const written = await service.remember(scopeId, { entries: [{ text: 'Alice lives in Paris' }] });
      const entryId = written.entries[0]!.entryId;
      const revise = { entryId, text: 'Alice lives in Berlin', metadata: { zeta: 1, alpha: { b: 2, a: 1 } } };
      const revised = await service.revise(scopeId, revise, { idempotencyKey: 'revise' });
      expect(revised).toMatchObject({ status: 'created', memory: { revision: 2 } });
      const forgotten = await service.forget(scopeId, { entryId }, { idempotencyKey: 'forget' });
      expect(forgotten).toMatchObject({ status: 'created', memory: { revision: 3 } });
      const forgottenAgain = await service.forget(scopeId, { entryId }, { idempotencyKey: 'forget-twice' });
      expect(forgottenAgain).toMatchObject({ status: 'unchanged', memory: { revision: 3 } });
      const back = await service.reactivate(scopeId, { entryId }, { idempotencyKey: 'reactivate' });
      expect(back).toMatchObject({ status: 'created', memory: { revision: 4 } });

      const { replayed, ...revisedAgain } = await service.revise(scopeId, revise, {
        idempotencyKey: 'revise',
      });
      expect(replayed).toBe(true);
      // Exactly the first answer, down to the key order of the metadata the store gave back.
      expect(JSON.stringify(revisedAgain)).toBe(JSON.stringify(revised));
      // The entry is active now, yet the repeated forget writes nothing: it answers what it answered.
      expect(await service.forget(scopeId, { entryId }, { idempotencyKey: 'forget' })).toEqual({
        ...forgotten,
        replayed: true,
      });
      expect(await service.forget(scopeId, { entryId }, { idempotencyKey: 'forget-twice' })).toEqual({
        ...forgottenAgain,
        replayed: true,
      });
      expect(await service.reactivate(scopeId, { entryId }, { idempotencyKey: 'reactivate' })).toEqual({
        ...back,
        replayed: true,
      });
      expect((await getStore().head(scopeId))?.revision).toBe(4);
      expect((await service.get(scopeId, { entryId })).entry.state).toBe('active');
    });

    it('records the key in the write’s transaction: a failed or rolled-back write leaves none', async () => {
      const service = serviceWith();
      const store = getStore();
      const scopeId = scope();
      await expect(
        service.forget(scopeId, { entryId: randomUUID() }, { idempotencyKey: 'failed' }),
      ).rejects.toMatchObject({ code: 'not_found' });
      expect(await store.idempotencyRecord(scopeId, 'failed', new Date())).toBeUndefined();

      await service.remember(scopeId, { entries: [{ text: 'base' }] });
      const now = new Date();
      const record = {
        key: 'rolled-back',
        operation: 'remember' as const,
        requestDigest: 'sha256:test',
        result: '{"kept":"verbatim"}',
        createdAt: now,
        expiresAt: new Date(now.getTime() + RETENTION_MS),
      };
      await expect(
        store.write(scopeId, 1, async (tx) => {
          await tx.appendRevision('remember', [newVersion('half written')], PLAIN_LEXICAL_PROJECTION);
          await tx.recordIdempotency(record);
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      expect(await store.idempotencyRecord(scopeId, 'rolled-back', now)).toBeUndefined();
      expect((await store.head(scopeId))?.revision).toBe(1);

      // Committed without a new revision (a write that changed nothing) it is kept, field for field.
      await store.write(scopeId, 1, (tx) => tx.recordIdempotency(record));
      expect(await store.idempotencyRecord(scopeId, 'rolled-back', now)).toEqual(record);
      expect(await store.idempotencyRecord(scopeId, 'rolled-back', record.expiresAt)).toBeUndefined();
    });

    it('refuses a second record of a live key in the transaction, so the loser of a race rolls back', async () => {
      const store = getStore();
      const scopeId = scope();
      await serviceWith().remember(scopeId, { entries: [{ text: 'base' }] });
      const now = new Date();
      const record = (result: string) => ({
        key: 'raced',
        operation: 'remember' as const,
        requestDigest: 'sha256:test',
        result,
        createdAt: now,
        expiresAt: new Date(now.getTime() + RETENTION_MS),
      });
      await store.write(scopeId, 1, (tx) => tx.recordIdempotency(record('"winner"')));
      await expect(
        store.write(scopeId, 1, async (tx) => {
          await tx.appendRevision('remember', [newVersion('loser')], PLAIN_LEXICAL_PROJECTION);
          await tx.recordIdempotency(record('"loser"'));
        }),
      ).rejects.toMatchObject({ code: 'revision_conflict' });
      expect((await store.head(scopeId))?.revision).toBe(1);
      expect((await store.idempotencyRecord(scopeId, 'raced', now))?.result).toBe('"winner"');
      // Once expired, the key is free again: the new record replaces the old one.
      const later = new Date(now.getTime() + RETENTION_MS);
      await store.write(scopeId, 1, (tx) =>
        tx.recordIdempotency({
          ...record('"next"'),
          createdAt: later,
          expiresAt: new Date(later.getTime() + 1),
        }),
      );
      expect((await store.idempotencyRecord(scopeId, 'raced', later))?.result).toBe('"next"');
    });

    it('lets one of racing duplicates write, in one process and across processes; the others replay', async () => {
      const scopeId = scope();
      // Two services with separate in-process locks stand in for two processes.
      const [one, two] = [serviceWith({ maxWriteAttempts: 1 }), serviceWith({ maxWriteAttempts: 1 })];
      const entries = Array.from({ length: 20 }, (_, i) => ({ text: `raced entry ${i}` }));
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          (i % 2 === 0 ? one : two).remember(scopeId, { entries }, { idempotencyKey: 'race' }),
        ),
      );
      expect(results.filter((result) => !result.replayed)).toHaveLength(1);
      const original = results.find((result) => !result.replayed)!;
      for (const result of results)
        expect(result).toEqual({ ...original, ...(result.replayed ? { replayed: true } : {}) });
      expect((await getStore().head(scopeId))?.revision).toBe(1);
      expect((await one.list(scopeId, { limit: 100 })).entries).toHaveLength(20);

      // A duplicate that changes nothing moves no head: only the record arbitrates.
      const entryId = original.entries[0]!.entryId;
      await one.forget(scopeId, { entryId });
      const unchanged = await Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          (i % 2 === 0 ? one : two).forget(scopeId, { entryId }, { idempotencyKey: 'race-unchanged' }),
        ),
      );
      expect(unchanged.filter((result) => !result.replayed)).toHaveLength(1);
      expect(new Set(unchanged.map((result) => `${result.status}@${result.memory.revision}`))).toEqual(
        new Set(['unchanged@2']),
      );
    });

    it('keeps a key for the retention time, then frees it', async () => {
      const clock = testClock();
      const service = serviceWith({ clock: clock.now });
      const scopeId = scope();
      const first = await service.remember(
        scopeId,
        { entries: [{ text: 'kept a minute' }] },
        { idempotencyKey: 'ttl' },
      );
      clock.advance(RETENTION_MS - 1);
      await expect(
        service.remember(scopeId, { entries: [{ text: 'kept a minute' }] }, { idempotencyKey: 'ttl' }),
      ).resolves.toEqual({ ...first, replayed: true });
      clock.advance(1);
      expect(await getStore().idempotencyRecord(scopeId, 'ttl', clock.now())).toBeUndefined();
      const reused = await service.remember(
        scopeId,
        { entries: [{ text: 'a new write' }] },
        { idempotencyKey: 'ttl' },
      );
      expect(reused).toMatchObject({ memory: { revision: 2 }, entries: [{ status: 'created' }] });
      expect(reused.replayed).toBeUndefined();
      // The key now names the new write.
      await expect(
        service.remember(scopeId, { entries: [{ text: 'kept a minute' }] }, { idempotencyKey: 'ttl' }),
      ).rejects.toMatchObject({ code: 'idempotency_key_reused' });
    });

    it('checks the key: 1-255 visible ASCII characters, named idempotencyKey', async () => {
      const service = serviceWith();
      const scopeId = scope();
      const bad: [string, string][] = [
        ['', 'idempotencyKey must be at least 1 character'],
        ['k'.repeat(256), 'idempotencyKey must be at most 255 characters'],
        ['with space', 'idempotencyKey must be visible ASCII characters only (! to ~, no spaces)'],
        ['tab\there', 'idempotencyKey must be visible ASCII characters only (! to ~, no spaces)'],
        ['clé', 'idempotencyKey must be visible ASCII characters only (! to ~, no spaces)'],
      ];
      for (const [key, rule] of bad) {
        await expect(
          service.remember(scopeId, { entries: [{ text: 'x' }] }, { idempotencyKey: key }),
        ).rejects.toMatchObject({ code: 'invalid_request', issues: [{ field: 'idempotencyKey', rule }] });
      }
      expect(await getStore().head(scopeId)).toBeUndefined();
      const longest = `${'~'.repeat(254)}!`;
      await expect(
        service.remember(scopeId, { entries: [{ text: 'x' }] }, { idempotencyKey: longest }),
      ).resolves.toMatchObject({ memory: { revision: 1 } });
    });

    it('stops an aborted write before its transaction; once the transaction began, the write commits', async () => {
      const service = serviceWith();
      const scopeId = scope();
      const aborted = new AbortController();
      aborted.abort(new Error('gave up'));
      const began: number[] = [];
      await expect(
        service.remember(
          scopeId,
          { entries: [{ text: 'never written' }] },
          { signal: aborted.signal, onTransactionBegin: ({ headRevision }) => began.push(headRevision) },
        ),
      ).rejects.toThrow('gave up');
      expect(began).toEqual([]);
      expect(await getStore().head(scopeId)).toBeUndefined();

      const late = new AbortController();
      const written = await service.remember(
        scopeId,
        { entries: [{ text: 'written all the same' }] },
        {
          idempotencyKey: 'late',
          signal: late.signal,
          onTransactionBegin: (progress) => {
            began.push(progress.headRevision);
            late.abort(new Error('too late to stop'));
          },
        },
      );
      expect(began).toEqual([0]);
      expect(written.memory.revision).toBe(1);
      expect(
        await service.remember(
          scopeId,
          { entries: [{ text: 'written all the same' }] },
          { idempotencyKey: 'late' },
        ),
      ).toEqual({
        ...written,
        replayed: true,
      });
    });

    it('imports with a key: a re-run answers the stored batches with their first results', async () => {
      const service = serviceWith();
      const scopeId = scope();
      const records = Array.from({ length: 7 }, (_, i) => ({
        line: i + 1,
        entry: { text: `imported ${i}` },
      }));
      const first = await service.import(scopeId, records, { batchSize: 3, idempotencyKey: 'import-1' });
      expect(first).toMatchObject({ entries: 7, created: 7, duplicates: 0, batches: 3 });
      const again = await service.import(scopeId, records, { batchSize: 3, idempotencyKey: 'import-1' });
      expect(again).toMatchObject({
        entries: 7,
        created: 7,
        duplicates: 0,
        batches: 3,
        memory: first.memory,
      });
      expect((await getStore().head(scopeId))?.revision).toBe(3);
      await expect(
        service.import(scopeId, records, { batchSize: 2, idempotencyKey: 'import-1' }),
      ).rejects.toMatchObject({ code: 'idempotency_key_reused' });
      await expect(service.import(scopeId, records, { idempotencyKey: ' ' })).rejects.toMatchObject({
        issues: [{ field: 'idempotencyKey' }],
      });
    });
  });
}

function newVersion(text: string) {
  return {
    entryId: randomUUID(),
    entryVersionId: randomUUID(),
    version: 1,
    previousVersionId: null,
    kind: 'note',
    text,
    contentHash: contentHash('note', text),
    sources: [],
    position: null,
    metadata: {},
    tags: [],
    pinned: false,
    occurredAt: null,
    state: 'active' as const,
  };
}
