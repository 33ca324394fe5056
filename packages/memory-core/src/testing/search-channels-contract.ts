import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryStore } from '../ports/memory-store.port.js';
import type { RetrievalPolicy } from '../ports/retrieval-policy.port.js';
import { MemoryService } from '../service/memory-service.js';
import { createFakeEmbedder } from './fake-embedder.js';

export interface SearchChannelsContractOptions {
  createStore: () => Promise<MemoryStore>;
  /** A policy that fuses fts, vector, entity and graph. */
  retrievalPolicy: RetrievalPolicy;
}

const NOTES = [
  'Incident ACME-7: payments-api returned 502s after the deploy.', // 0
  'The rollback of payments-api on db-01 was done by Dana at 14:05.', // 1
  'db-01 disk filled up because of verbose logging.', // 2
  'Lunch order: two pizzas for the team on Friday.', // 3
  'The quarterly offsite moves to Lisbon in May.', // 4
];

/**
 * The optional entity and graph channels through the search service (RFC 0013): a query naming an
 * entity finds its holders through the entity channel, the graph channel reaches entries that share a
 * rare entity with them, the channels say which found each hit, and run in the modes of text channels.
 */
export function describeSearchChannelsContract(name: string, options: SearchChannelsContractOptions) {
  describe(`search channels contract: ${name}`, () => {
    let store: MemoryStore;
    let service: MemoryService;
    const embedder = createFakeEmbedder();
    const scopeId = `channels-${randomUUID()}`;
    let ids: string[] = [];

    beforeAll(async () => {
      store = await options.createStore();
      await store.prepareEmbeddingProfile(embedder.profile);
      service = new MemoryService({ store, embedder, retrievalPolicy: options.retrievalPolicy });
      const { entries } = await service.remember(scopeId, { entries: NOTES.map((text) => ({ text })) });
      ids = entries.map((entry) => entry.entryId);
    });
    afterAll(async () => {
      await store?.close();
    });

    it('runs the entity and graph channels beside fts and vector', () => {
      expect(service.searchChannels.map((channel) => channel.name)).toEqual([
        'fts',
        'vector',
        'entity',
        'graph',
      ]);
    });

    it('finds the holders of a named entity through the entity channel, and says so', async () => {
      const result = await service.search(scopeId, { query: 'what happened with ACME-7?', mode: 'hybrid' });
      const incident = result.hits.find((hit) => hit.citation.entryId === ids[0]);
      expect(incident?.matchedBy).toContain('entity');
      expect(incident?.channelRanks.entity).toBe(1);
      expect(result.hits.filter((hit) => hit.matchedBy.includes('entity'))).toHaveLength(1);
    });

    it('reaches entries linked by a shared rare entity through the graph channel, one hop', async () => {
      // ACME-7's note names payments-api, which note 1 holds too; note 1 names db-01, which only the
      // second hop would reach (note 2): one hop finds note 1 and not note 2.
      const result = await service.search(scopeId, { query: 'ACME-7', mode: 'fts', limit: 10 });
      const byEntry = new Map(result.hits.map((hit) => [hit.citation.entryId, hit]));
      expect(byEntry.get(ids[1]!)?.matchedBy).toContain('graph');
      expect(byEntry.get(ids[1]!)?.channelRanks.graph).toBe(1);
      expect(byEntry.get(ids[0]!)?.matchedBy).not.toContain('graph');
      expect(byEntry.get(ids[2]!)?.matchedBy ?? []).not.toContain('graph');
    });

    it('runs as text channels: in fts and hybrid mode, not in vector mode', async () => {
      for (const [mode, runs] of [
        ['fts', true],
        ['hybrid', true],
        ['vector', false],
      ] as const) {
        const result = await service.search(scopeId, { query: 'what did Dana do?', mode, limit: 10 });
        const found = result.hits.filter((hit) => hit.matchedBy.includes('entity'));
        expect(
          found.map((hit) => hit.citation.entryId),
          mode,
        ).toEqual(runs ? [ids[1]] : []);
      }
    });

    it('adds nothing for a query that names no entity', async () => {
      const result = await service.search(scopeId, { query: 'pizza for lunch', mode: 'hybrid', limit: 10 });
      expect(result.hits.length).toBeGreaterThan(0);
      for (const hit of result.hits) {
        expect(hit.matchedBy.some((channel) => channel === 'entity' || channel === 'graph')).toBe(false);
      }
    });

    it('leaves out an entity most entries hold: it says nothing about which entry is meant', async () => {
      const scope = `channels-common-${randomUUID()}`;
      await service.remember(scope, {
        entries: [
          'The standup was run by Kim today.',
          'The release notes were written by Kim.',
          'A retro with Kim went long.',
          'Budget review moved to Thursday.',
          'The office plants need water.',
        ].map((text) => ({ text })),
      });
      const result = await service.search(scope, { query: 'what did Kim write?', mode: 'fts', limit: 10 });
      expect(result.hits.length).toBeGreaterThan(0);
      expect(result.hits.filter((hit) => hit.matchedBy.includes('entity'))).toEqual([]);
    });

    it('stops matching a revised entry at later revisions', async () => {
      const scope = `channels-revised-${randomUUID()}`;
      const { entries } = await service.remember(scope, { entries: NOTES.map((text) => ({ text })) });
      const before = await service.search(scope, { query: 'the trip to Lisbon', mode: 'fts' });
      expect(before.hits.filter((hit) => hit.matchedBy.includes('entity'))).toHaveLength(1);
      await service.revise(scope, {
        entryId: entries[4]!.entryId,
        text: 'The quarterly offsite is cancelled.',
      });
      const result = await service.search(scope, { query: 'the trip to Lisbon', mode: 'fts' });
      expect(result.hits.filter((hit) => hit.matchedBy.includes('entity'))).toEqual([]);
    });
  });
}
