import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ChannelCandidate } from '../domain/search.js';
import type { MemoryStore } from '../ports/memory-store.port.js';
import { MemoryService } from '../service/memory-service.js';
import { createFakeEmbedder } from './fake-embedder.js';
import { noSearchPolicy } from './no-search-policy.js';

const TEXTS = [
  'ACME-7 broke payments-api during the deploy.', // 0: acme-7, payments-api
  'Ask @dana about ACME-7 on db-01 before noon.', // 1: @dana, acme-7, db-01
  'The payments-api service runs on db-01 with Kafka.', // 2: payments-api, db-01, kafka
  'We moved the queue to Kafka last spring.', // 3: kafka
  'Lunch went long, the sync was short.', // 4: none
  'Kafka lag alerts fired twice for Kafka consumers.', // 5: kafka
];

const idf = (activeEntries: number, df: number) => Math.log(1 + (activeEntries - df + 0.5) / (df + 0.5));

/**
 * The entity index behind the entity and graph channels (RFC 0013): what `extractEntities` finds in
 * each active version at write time, visible per revision like the lexical projection, ranked by IDF,
 * and erased by a purge. Part of the MemoryStore contract.
 */
export function describeEntityIndexContract(getStore: () => MemoryStore) {
  describe('entity index (RFC 0013)', () => {
    const service = () =>
      new MemoryService({
        store: getStore(),
        embedder: createFakeEmbedder(),
        retrievalPolicy: noSearchPolicy,
      });

    async function written() {
      const scopeId = `entities-${randomUUID()}`;
      const { entries, memory } = await service().remember(scopeId, {
        entries: TEXTS.map((text) => ({ text })),
      });
      return { scopeId, revision: memory.revision, ids: entries.map((entry) => entry.entryId) };
    }

    const entryIds = (candidates: readonly ChannelCandidate[]) => candidates.map((c) => c.entryId);
    const sortedIds = (...ids: string[]) => [...ids].sort();

    it('finds the versions holding the query’s entities, the rarer entity first, by summed IDF', async () => {
      const { scopeId, revision, ids } = await written();
      const found = await getStore().entitySearch({
        scopeId,
        revision,
        entities: ['payments-api', '@dana', 'nobody@nowhere.org'],
        limit: 10,
      });
      expect(found.activeEntries).toBe(TEXTS.length);
      // @dana (df 1) outweighs payments-api (df 2); the two holders of payments-api tie, by entry id.
      expect(entryIds(found.candidates)).toEqual([ids[1], ...sortedIds(ids[0]!, ids[2]!)]);
      expect(found.candidates.map((c) => [c.rank, c.matchedTerms])).toEqual([
        [1, 1],
        [2, 1],
        [3, 1],
      ]);
      expect(found.candidates[0]!.score).toBeCloseTo(idf(6, 1), 12);
      expect(found.candidates[1]!.score).toBeCloseTo(idf(6, 2), 12);
      expect(found.candidates[1]!.score).toBe(found.candidates[2]!.score);

      const both = await getStore().entitySearch({
        scopeId,
        revision,
        entities: ['acme-7', 'db-01'],
        limit: 1,
      });
      expect(entryIds(both.candidates)).toEqual([ids[1]]);
      expect(both.candidates[0]!.matchedTerms).toBe(2);
      expect(both.candidates[0]!.score).toBeCloseTo(idf(6, 2) + idf(6, 2), 12);
      const none = await getStore().entitySearch({ scopeId, revision, entities: ['zz-top-9'], limit: 10 });
      expect(none.candidates).toEqual([]);
    });

    it('counts only entities at most max(2, floor(share x N)) versions hold, when a share is given', async () => {
      const { scopeId, revision, ids } = await written();
      const search = (maxDocumentShare?: number) =>
        getStore().entitySearch({
          scopeId,
          revision,
          entities: ['kafka', '@dana'],
          limit: 10,
          ...(maxDocumentShare === undefined ? {} : { maxDocumentShare }),
        });
      // kafka is held by 3 of 6: over max(2, floor(0.1 x 6)) = 2, within max(2, floor(0.5 x 6)) = 3.
      expect(entryIds((await search(0.1)).candidates)).toEqual([ids[1]]);
      const kafka = sortedIds(ids[2]!, ids[3]!, ids[5]!);
      expect(entryIds((await search(0.5)).candidates)).toEqual([ids[1], ...kafka]);
      expect(entryIds((await search()).candidates)).toEqual([ids[1], ...kafka]);
      expect((await search(0.1)).activeEntries).toBe(6);
    });

    it('matches a version at exactly the revisions it is live at; forgotten versions hold none', async () => {
      const { scopeId, revision, ids } = await written();
      const revised = await service().revise(scopeId, { entryId: ids[0]!, text: 'payments-api recovered.' });
      const forgotten = await service().forget(scopeId, { entryId: ids[1]! });
      const acme = (at: number) =>
        getStore().entitySearch({ scopeId, revision: at, entities: ['acme-7'], limit: 10 });
      expect(entryIds((await acme(revision)).candidates)).toEqual(sortedIds(ids[0]!, ids[1]!));
      expect(entryIds((await acme(revised.memory.revision)).candidates)).toEqual([ids[1]]);
      expect((await acme(forgotten.memory.revision)).candidates).toEqual([]);
      const atHead = await getStore().entitySearch({
        scopeId,
        revision: forgotten.memory.revision,
        entities: ['payments-api'],
        limit: 10,
      });
      expect(atHead.activeEntries).toBe(TEXTS.length - 1);
      expect(entryIds(atHead.candidates)).toEqual(sortedIds(ids[0]!, ids[2]!));
      expect(atHead.candidates[0]!.entryVersionId).not.toBe(
        (await acme(revision)).candidates.find((c) => c.entryId === ids[0])?.entryVersionId,
      );
    });

    it('keeps nothing of a purged entry at any revision, and keeps scopes apart', async () => {
      const { scopeId, ids } = await written();
      const other = `entities-other-${randomUUID()}`;
      await service().remember(other, { entries: [{ text: 'Ask @dana again.' }] });
      const purged = await service().purge(scopeId, { entryId: ids[1]! });
      for (let at = 1; at <= purged.memory.revision; at += 1) {
        for (const entity of ['@dana', 'db-01', 'acme-7']) {
          const found = await getStore().entitySearch({
            scopeId,
            revision: at,
            entities: [entity],
            limit: 10,
          });
          expect(entryIds(found.candidates), `${entity} at revision ${at}`).not.toContain(ids[1]);
        }
      }
      const dana = await getStore().entitySearch({
        scopeId,
        revision: purged.memory.revision,
        entities: ['@dana'],
        limit: 10,
      });
      expect(dana.candidates).toEqual([]);
    });

    it('links seeds to other versions through shared rare entities, one hop (the graph read)', async () => {
      const { scopeId, revision, ids } = await written();
      const seeds = await getStore().entitySearch({ scopeId, revision, entities: ['acme-7'], limit: 10 });
      const neighbours = (maxDocumentFrequency: number, excludedEntities = ['acme-7']) =>
        getStore().entityNeighbours({
          scopeId,
          revision,
          seedVersionIds: seeds.candidates.map((c) => c.entryVersionId),
          excludedEntities,
          maxDocumentFrequency,
          limit: 10,
        });
      // Seeds 0 and 1 hold payments-api and db-01 (each also held by 2) and @dana (held by 1 alone).
      const linked = await neighbours(2);
      expect(entryIds(linked)).toEqual([ids[2]]);
      expect(linked[0]).toMatchObject({ rank: 1, matchedTerms: 2 });
      expect(linked[0]!.score).toBeCloseTo(idf(6, 2) + idf(6, 2), 12);
      // An entity held by more than the bound does not link; the seeds never come back.
      expect(await neighbours(1)).toEqual([]);
      // From version 2 (payments-api, db-01, kafka) with nothing excluded and a bound of 3: kafka links
      // versions 3 and 5, payments-api version 0, db-01 version 1; version 1 is a seed too.
      const seed2 = (await getStore().entryAt(scopeId, ids[2]!, revision))!.entryVersionId;
      const seed1 = seeds.candidates.find((c) => c.entryId === ids[1])!.entryVersionId;
      const wider = await getStore().entityNeighbours({
        scopeId,
        revision,
        seedVersionIds: [seed2, seed1],
        excludedEntities: [],
        maxDocumentFrequency: 3,
        limit: 10,
      });
      expect(sortedIds(...entryIds(wider))).toEqual(sortedIds(ids[0]!, ids[3]!, ids[5]!));
      // Version 0 shares payments-api and acme-7 (df 2 each); 3 and 5 share kafka (df 3): 0 first.
      expect(wider[0]).toMatchObject({ entryId: ids[0], matchedTerms: 2 });
    });
  });
}
