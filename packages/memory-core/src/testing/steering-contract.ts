import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractEntities } from '../domain/entities.js';
import type { EntryVersion } from '../domain/memory-entry.js';
import type { MemoryStore } from '../ports/memory-store.port.js';
import type { RetrievalPolicy } from '../ports/retrieval-policy.port.js';
import { MemoryService } from '../service/memory-service.js';
import { createFakeEmbedder } from './fake-embedder.js';

export interface SteeringContractOptions {
  createStore: () => Promise<MemoryStore>;
  retrievalPolicy: RetrievalPolicy;
  /** Entries of the large scope (default 10,000); a filter keeps 1% of them. */
  largeScopeEntries?: number;
}

const LARGE_BATCH = 1_000;

/**
 * RFC 0014 over a real store: the entry fields round-trip through every read, one filter keeps the same
 * entries in list and in every channel, and a filter is applied inside the channels (a filter that
 * keeps 1% of a large scope still fills a page, which a filter applied after a channel's top-k cannot).
 */
export function describeSteeringContract(name: string, options: SteeringContractOptions) {
  describe(`steering contract: ${name}`, () => {
    let store: MemoryStore;
    let service: MemoryService;
    const embedder = createFakeEmbedder();
    const scopeId = `steer-${randomUUID()}`;
    const largeScopeId = `steer-large-${randomUUID()}`;
    const largeEntries = options.largeScopeEntries ?? 10_000;
    const ids: Record<string, string> = {};
    let firstWrittenAt = '';

    beforeAll(async () => {
      store = await options.createStore();
      await store.prepareEmbeddingProfile(embedder.profile);
      service = new MemoryService({ store, embedder, retrievalPolicy: options.retrievalPolicy });
      const first = await service.remember(scopeId, {
        entries: [
          {
            text: 'Billing moved to the Ledgerly invoice service in June (ticket INV-4411, see PAY-77).',
            kind: 'decision',
            tags: ['Billing', 'infra', 'billing'],
            pinned: true,
            occurredAt: '2026-06-03T10:00:00+02:00',
            sources: [{ sourceId: 'meeting-7', locator: 'minute 12' }],
            metadata: { team: 'payments', level: { severity: 2, owners: ['ana', 'bo'] } },
          },
          {
            text: 'The invoice service Ledgerly retries failed charges twice (ticket INV-4411).',
            kind: 'fact',
            tags: ['billing'],
            occurredAt: '2026-05-01T00:00:00Z',
            sources: [{ sourceId: 'doc-3' }],
            metadata: { team: 'payments' },
          },
          {
            text: 'Invoice numbers restart every year at Ledgerly (ticket INV-4411, PAY-77).',
            kind: 'note',
            metadata: { team: 'ops' },
          },
        ],
      });
      ids.decision = first.entries[0]!.entryId;
      ids.fact = first.entries[1]!.entryId;
      ids.note = first.entries[2]!.entryId;
      firstWrittenAt = (await service.get(scopeId, { entryId: ids.note })).entry.createdAt;
      await new Promise((resolve) => setTimeout(resolve, 5));
      const second = await service.remember(scopeId, {
        entries: [
          { text: 'Ledgerly invoice exports run at night (ticket INV-4411).', kind: 'fact', tags: ['ops'] },
        ],
      });
      ids.late = second.entries[0]!.entryId;

      // The large scope: every entry says "ledger"; 1% are tagged `rare`, and they say it once among
      // many other words, so every unfiltered channel ranks them last.
      for (let start = 0; start < largeEntries; start += LARGE_BATCH) {
        const entries = Array.from({ length: Math.min(LARGE_BATCH, largeEntries - start) }, (_, offset) => {
          const at = start + offset;
          return at % 100 === 7
            ? {
                text: `ledger entry ${at} with a long tail of words about harbour weather tides boats nets fish markets`,
                tags: ['rare'],
              }
            : { text: `ledger ledger ledger entry ${at}` };
        });
        await service.remember(largeScopeId, { entries });
      }
    }, 600_000);
    afterAll(async () => {
      await store?.close();
    });

    const entryOf = async (entryId: string) => (await service.get(scopeId, { entryId })).entry;

    it('keeps tags (folded to lower case, once each), pinned and occurred_at, and reads them back everywhere', async () => {
      const decision = await entryOf(ids.decision!);
      expect(decision).toMatchObject({
        kind: 'decision',
        tags: ['billing', 'infra'],
        pinned: true,
        occurredAt: '2026-06-03T08:00:00.000Z',
        sources: [{ sourceId: 'meeting-7', locator: 'minute 12' }],
        metadata: { team: 'payments' },
      });
      expect(Date.parse(decision.createdAt)).not.toBeNaN();
      expect(decision.revision).toBe(1);
      const note = await entryOf(ids.note!);
      expect(note).toMatchObject({ tags: [], pinned: false, occurredAt: null });

      const listed = await service.list(scopeId, {});
      expect(listed.entries.find((entry) => entry.entryId === ids.decision)).toEqual(decision);
      const changes = await service.changes(scopeId, {});
      const change = changes.changes.find((each) => !each.purged && each.version.entryId === ids.decision);
      expect(change).toMatchObject({ version: decision });
      const search = await service.search(scopeId, { query: 'billing moved', mode: 'fts' });
      expect(search.hits.find((hit) => hit.citation.entryId === ids.decision)?.entry).toEqual(decision);
    });

    it('lets a revise change the fields in a new version, keep them when absent, clear occurred_at with null', async () => {
      const scope = `steer-revise-${randomUUID()}`;
      const created = await service.remember(scope, {
        entries: [
          { text: 'Deploys freeze on Fridays.', tags: ['release'], occurredAt: '2026-01-02T03:04:05Z' },
        ],
      });
      const entryId = created.entries[0]!.entryId;
      const same = await service.revise(scope, { entryId, text: 'Deploys freeze on Fridays.' });
      expect(same.status).toBe('unchanged');
      const pinned = await service.revise(scope, {
        entryId,
        text: 'Deploys freeze on Fridays.',
        pinned: true,
      });
      expect(pinned.status).toBe('created');
      expect(pinned.entry).toMatchObject({ version: 2, pinned: true, tags: ['release'] });
      const cleared = await service.revise(scope, {
        entryId,
        text: 'Deploys freeze on Fridays.',
        tags: ['Release', 'Ops'],
        occurredAt: null,
      });
      expect(cleared.entry).toMatchObject({
        version: 3,
        pinned: true,
        tags: ['release', 'ops'],
        occurredAt: null,
      });
      expect((await service.get(scope, { entryId, revision: 1 })).entry).toMatchObject({
        pinned: false,
        occurredAt: '2026-01-02T03:04:05.000Z',
      });
    });

    it('refuses bad fields and bad filters with the field and the rule, writing nothing', async () => {
      const scope = `steer-bad-${randomUUID()}`;
      await expect(
        service.remember(scope, {
          entries: [{ text: 'x', tags: Array.from({ length: 33 }, (_, i) => `t${i}`) }],
        }),
      ).rejects.toMatchObject({
        issues: [{ field: 'entries.0.tags', rule: 'tags must have at most 32 items' }],
      });
      await expect(
        service.remember(scope, { entries: [{ text: 'x', tags: ['a'.repeat(65)] }] }),
      ).rejects.toMatchObject({
        issues: [{ field: 'entries.0.tags.0', rule: 'tag must be at most 64 characters' }],
      });
      await expect(
        service.remember(scope, { entries: [{ text: 'x', occurredAt: 'June 3rd' }] }),
      ).rejects.toMatchObject({
        issues: [{ field: 'entries.0.occurredAt' }],
      });
      expect(await store.head(scope)).toBeUndefined();
      await expect(
        service.search(scopeId, { query: 'ledgerly', filter: { colour: 'red' } as never }),
      ).rejects.toMatchObject({ issues: [{ field: 'filter' }] });
      await expect(service.list(scopeId, { filter: { tagsAll: [] } })).rejects.toMatchObject({
        issues: [{ field: 'filter.tagsAll', rule: 'tags_all must have at least 1 item' }],
      });
      await expect(
        service.search(scopeId, { query: 'ledgerly', filter: { writtenAfter: 'yesterday' } }),
      ).rejects.toMatchObject({ issues: [{ field: 'filter.writtenAfter' }] });
    });

    const listedIds = async (filter: object) =>
      (await service.list(scopeId, { filter })).entries.map((entry) => entry.entryId).sort();
    const expected = (...names: string[]) => names.map((n) => ids[n]!).sort();

    it('keeps the entries each condition names, in list', async () => {
      expect(await listedIds({ kinds: ['fact'] })).toEqual(expected('fact', 'late'));
      expect(await listedIds({ kinds: ['fact', 'decision'] })).toEqual(expected('decision', 'fact', 'late'));
      expect(await listedIds({ tagsAll: ['BILLING', 'infra'] })).toEqual(expected('decision'));
      expect(await listedIds({ tagsAny: ['infra', 'ops'] })).toEqual(expected('decision', 'late'));
      expect(await listedIds({ sourceIds: ['doc-3', 'nowhere'] })).toEqual(expected('fact'));
      expect(await listedIds({ metadata: { team: 'payments' } })).toEqual(expected('decision', 'fact'));
      expect(await listedIds({ metadata: { level: { owners: ['bo'] } } })).toEqual(expected('decision'));
      expect(await listedIds({ metadata: { level: { severity: 3 } } })).toEqual([]);
      expect(await listedIds({ pinned: true })).toEqual(expected('decision'));
      expect(await listedIds({ pinned: false })).toEqual(expected('fact', 'note', 'late'));
      expect(await listedIds({ occurredAfter: '2026-05-01T00:00:00Z' })).toEqual(expected('decision'));
      expect(await listedIds({ occurredBefore: '2026-06-30T00:00:00Z' })).toEqual(
        expected('decision', 'fact'),
      );
      expect(await listedIds({ writtenAfter: firstWrittenAt })).toEqual(expected('late'));
      expect(await listedIds({ writtenBefore: firstWrittenAt, kinds: ['note', 'fact'] })).toEqual([]);
      const page = await service.list(scopeId, { filter: { tagsAny: ['billing'] }, limit: 1 });
      expect(page.total).toBe(2);
      expect(page.entries).toHaveLength(1);
      expect(page.nextCursor).toBeDefined();
    });

    it('orders a list by newest, oldest or entry id, with cursors that keep the order', async () => {
      const newest = await service.list(scopeId, { order: 'newest', limit: 1 });
      expect(newest.entries[0]!.entryId).toBe(ids.late);
      expect(newest.total).toBe(4);
      const rest = await service.list(scopeId, { order: 'newest', limit: 10, cursor: newest.nextCursor! });
      expect(rest.entries.map((entry) => entry.entryId).sort()).toEqual(expected('decision', 'fact', 'note'));
      const oldest = await service.list(scopeId, { order: 'oldest', limit: 3 });
      expect(oldest.entries.map((entry) => entry.revision)).toEqual([1, 1, 1]);
      const byId = await service.list(scopeId, {});
      const sorted = byId.entries.map((entry) => entry.entryId);
      expect(sorted).toEqual([...sorted].sort());
      await expect(
        service.list(scopeId, { order: 'oldest', cursor: newest.nextCursor! }),
      ).rejects.toMatchObject({
        issues: [{ field: 'cursor' }],
      });
    });

    it('applies the filter in every search mode', async () => {
      for (const mode of ['fts', 'vector', 'hybrid'] as const) {
        const result = await service.search(scopeId, {
          query: 'Ledgerly invoice',
          mode,
          filter: { kinds: ['fact'] },
        });
        expect(result.hits.map((hit) => hit.citation.entryId).sort()).toEqual(expected('fact', 'late'));
        for (const hit of result.hits) expect(hit.entry.kind).toBe('fact');
      }
    });

    it('applies the filter inside the entity and graph reads', async () => {
      const head = (await store.head(scopeId))!;
      const entities = extractEntities('what about INV-4411', 8);
      const all = await store.entitySearch({ scopeId, revision: head.revision, entities, limit: 10 });
      expect(all.candidates.map((c) => c.entryId).sort()).toEqual(
        expected('decision', 'fact', 'note', 'late'),
      );
      const kept = await store.entitySearch({
        scopeId,
        revision: head.revision,
        entities,
        limit: 10,
        filter: { tagsAny: ['billing'] },
      });
      expect(kept.candidates.map((c) => c.entryId).sort()).toEqual(expected('decision', 'fact'));
      expect(kept.activeEntries).toBe(all.activeEntries);
      const seed = all.candidates.find((c) => c.entryId === ids.decision)!;
      const linked = await store.entityNeighbours({
        scopeId,
        revision: head.revision,
        seedVersionIds: [seed.entryVersionId],
        excludedEntities: entities,
        maxDocumentFrequency: 10,
        limit: 10,
        filter: { kinds: ['note'] },
      });
      expect(linked.map((c) => c.entryId)).toEqual([ids.note]);
    });

    it(`fills a page with a filter that keeps 1% of ${largeEntries} entries, in every mode`, async () => {
      const listed = await service.list(largeScopeId, { filter: { tagsAny: ['rare'] }, limit: 1 });
      expect(listed.total).toBe(largeEntries / 100);
      // Unfiltered, no rare entry reaches the page: a filter applied after the channels would find none.
      const plain = await service.search(largeScopeId, { query: 'ledger', mode: 'hybrid', limit: 10 });
      expect(plain.hits.filter((hit) => hit.entry.tags.includes('rare'))).toEqual([]);
      for (const mode of ['fts', 'vector', 'hybrid'] as const) {
        const result = await service.search(largeScopeId, {
          query: 'ledger',
          mode,
          limit: 10,
          filter: { tagsAny: ['rare'] },
        });
        expect(result.hits).toHaveLength(10);
        const tagged = (entry: EntryVersion) => entry.tags.includes('rare');
        expect(result.hits.every((hit) => tagged(hit.entry))).toBe(true);
      }
    }, 120_000);
  });
}
