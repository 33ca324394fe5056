import { randomUUID } from 'node:crypto';
import { MemoryService, type VectorSearchQuery } from '@powercontext/memory-core';
import { createRrfRetrievalPolicy } from '@powercontext/retrieval-rrf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresMemoryStore } from './postgres-memory-store.js';
import {
  type MigratedBackend,
  openMigratedCitus,
  openMigratedPGlite,
  openMigratedPostgres,
} from './testing-support/migrated-backends.js';
import { createSparseEmbedder } from './testing-support/sparse-embedder.js';
import { wordCorpus } from './testing-support/word-corpus.js';
import { VectorIndexCache } from './vector-index-cache.js';

/**
 * The vector index in memory (RFC 0002) only chooses which vectors the database scores: the answer
 * must be the exact scan's, the same versions in the same order with the same scores, for any query,
 * limit and revision it holds, ties at the last place included, and never a past a purge rewrote.
 */

const VOCABULARY =
  'harbour lantern orchid granite velvet thunder meadow copper falcon ember glacier saffron willow quartz ripple cobalt juniper marble tundra zephyr'.split(
    ' ',
  );

/** A deterministic corpus: short turns over a small vocabulary, so directions repeat and cosines tie. */
const corpus = (count: number, seed: number) =>
  wordCorpus(VOCABULARY, { count, seed, minWords: 1, spread: 6 });

const QUERIES = [
  'harbour lantern',
  'orchid granite velvet',
  'thunder',
  'meadow copper falcon ember glacier saffron',
  'willow willow quartz',
  'unheard-of words only',
];
const LIMITS = [1, 7, 40, 700];

function describeSameAnswers(name: string, open: () => Promise<MigratedBackend>) {
  describe(`the vector index in memory on ${name}`, () => {
    let backend: MigratedBackend;
    let cache: VectorIndexCache;
    let cached: PostgresMemoryStore;
    let statement: PostgresMemoryStore;
    let service: MemoryService;
    /** Writes as another process would: through a store that holds no index. */
    let elsewhere: MemoryService;
    const embedder = createSparseEmbedder();
    const profileId = embedder.profile.id;
    const scopeId = `vector-cache-${randomUUID()}`;

    beforeAll(async () => {
      backend = await open();
      cache = new VectorIndexCache({ minSearches: 1 });
      cached = new PostgresMemoryStore({
        db: backend.db,
        distribution: backend.distribution ?? 'none',
        textSearchConfig: 'english',
        lexicalIndexCache: false,
        vectorIndexCache: cache,
      });
      statement = new PostgresMemoryStore({
        db: backend.db,
        distribution: backend.distribution ?? 'none',
        textSearchConfig: 'english',
        lexicalIndexCache: false,
        vectorIndexCache: false,
      });
      await cached.prepareEmbeddingProfile(embedder.profile);
      service = new MemoryService({ store: cached, embedder, retrievalPolicy: createRrfRetrievalPolicy() });
      elsewhere = new MemoryService({
        store: statement,
        embedder,
        retrievalPolicy: createRrfRetrievalPolicy(),
      });
      const texts = corpus(600, 11);
      for (let start = 0; start < texts.length; start += 200) {
        await service.remember(scopeId, {
          entries: texts.slice(start, start + 200).map((text) => ({ text })),
        });
      }
    }, 120_000);
    afterAll(async () => {
      await cached?.close().catch(() => {});
      await backend?.close();
    });

    async function vectorOf(text: string): Promise<number[]> {
      return (await embedder.embed([text]))[0]!;
    }

    /** Searches through the exact scan, lets the cache read the vectors, and waits until it holds them. */
    async function holdIndex(revision: number): Promise<void> {
      const vector = await vectorOf('harbour');
      await expect
        .poll(
          async () => {
            await cached.vectorSearch({ scopeId, revision, profileId, vector, limit: 5 });
            return cache.lookup(scopeId, profileId, revision) !== undefined;
          },
          { timeout: 30_000, interval: 100 },
        )
        .toBe(true);
    }

    /** Every query and limit answers as the exact scan does; returns how many came from memory. */
    async function expectSameAnswers(revision: number): Promise<number> {
      const answered = cache.counts.answered;
      for (const text of QUERIES) {
        const vector = await vectorOf(text);
        for (const limit of LIMITS) {
          const asked: VectorSearchQuery = { scopeId, revision, profileId, vector, limit };
          const [fromMemory, fromStatement] = [
            await cached.vectorSearch(asked),
            await statement.vectorSearch(asked),
          ];
          expect(fromMemory, `${text} (limit ${limit})`).toEqual(fromStatement);
        }
      }
      return cache.counts.answered - answered;
    }

    it('answers every query as the exact scan does, ties and limits included', {
      timeout: 120_000,
    }, async () => {
      const head = (await cached.head(scopeId))!.revision;
      await holdIndex(head);
      const fromMemory = await expectSameAnswers(head);
      // Most answers' candidates came from memory (a query whose k-th cosine is about 0 goes to the scan).
      expect(fromMemory).toBeGreaterThanOrEqual((QUERIES.length - 1) * LIMITS.length - 2);
      // Ties: equal texts have equal vectors, and the scan's order among them is kept.
      const answer = await cached.vectorSearch({
        scopeId,
        revision: head,
        profileId,
        vector: await vectorOf('thunder'),
        limit: 40,
      });
      const scores = answer.map((candidate) => candidate.score);
      expect(new Set(scores).size).toBeLessThan(scores.length);
    });

    it('chooses among a handful of candidates, not the whole scope', { timeout: 60_000 }, async () => {
      const head = (await cached.head(scopeId))!.revision;
      await holdIndex(head);
      const index = cache.lookup(scopeId, profileId, head)!;
      // Equal texts are stored once, so the scope holds each distinct text of the corpus.
      expect(index.entryVersionIds).toHaveLength(new Set(corpus(600, 11)).size);
      const { vectorCandidates } = await import('./vector-index-cache.js');
      const chosen = vectorCandidates(
        index,
        await vectorOf('meadow copper falcon ember glacier saffron'),
        7,
        71,
      );
      expect(chosen).toBeDefined();
      expect(chosen!.length).toBeGreaterThanOrEqual(7);
      expect(chosen!.length).toBeLessThanOrEqual(71);
    });

    it('leaves a dense query to the exact scan', { timeout: 60_000 }, async () => {
      const head = (await cached.head(scopeId))!.revision;
      await holdIndex(head);
      const vector = Array.from(
        { length: embedder.profile.dimension },
        (_, at) => ((at % 7) - 3) / 10 || 0.05,
      );
      const answered = cache.counts.answered;
      const asked = { scopeId, revision: head, profileId, vector, limit: 10 };
      expect(await cached.vectorSearch(asked)).toEqual(await statement.vectorSearch(asked));
      expect(cache.counts.answered).toBe(answered);
    });

    it("answers a new revision (revised, forgotten entries, another process's writes) as the exact scan does", {
      timeout: 120_000,
    }, async () => {
      const before = (await cached.head(scopeId))!.revision;
      const listed = await cached.listEntries({ scopeId, revision: before, state: 'active', limit: 10 });
      await elsewhere.revise(scopeId, {
        entryId: listed[0]!.entryId,
        text: 'harbour harbour lantern zephyr',
      });
      await elsewhere.forget(scopeId, { entryId: listed[1]!.entryId });
      const head = (await cached.head(scopeId))!.revision;
      expect(cache.lookup(scopeId, profileId, head)).toBeUndefined();
      await holdIndex(head);
      expect(await expectSameAnswers(head)).toBeGreaterThan(0);
      // The revision before the writes is still answered exactly, by the scan.
      const vector = await vectorOf('harbour lantern');
      const asked = { scopeId, revision: before, profileId, vector, limit: 40 };
      expect(await cached.vectorSearch(asked)).toEqual(await statement.vectorSearch(asked));
    });

    it("follows writes by their delta (its own before the write returns, another process's at the next search), and takes the candidates from memory", {
      timeout: 120_000,
    }, async () => {
      const start = (await cached.head(scopeId))!.revision;
      await holdIndex(start);
      const held = cache.lookup(scopeId, profileId, start)!;
      const [removed, added] = [held.removedCount, held.added.ids.length];

      const caughtUp = cache.counts.caughtUp;
      const listed = await cached.listEntries({ scopeId, revision: start, state: 'active', limit: 30 });
      const writes: (() => Promise<unknown>)[] = [
        () =>
          service.remember(scopeId, { entries: corpus(4, 77).map((text) => ({ text: `${text} harbour` })) }),
        () =>
          service.revise(scopeId, { entryId: listed[5]!.entryId, text: 'lantern lantern orchid granite' }),
        () => service.forget(scopeId, { entryId: listed[6]!.entryId }),
      ];
      for (const write of writes) {
        await write();
        const head = (await cached.head(scopeId))!.revision;
        // Moved forward by the write itself, before any search.
        expect(cache.latest(scopeId, profileId)?.revision).toBe(head);
        expect(await expectSameAnswers(head)).toBeGreaterThanOrEqual(
          (QUERIES.length - 1) * LIMITS.length - 2,
        );
      }
      const head = (await cached.head(scopeId))!.revision;
      expect(cache.lookup(scopeId, profileId, head)).toBe(held);
      // The revised and the forgotten versions removed, the new ones added: the index holds exactly the
      // versions active at the head.
      expect(held.removedCount - removed).toBe(2);
      expect(held.added.ids.length - added).toBeGreaterThanOrEqual(2);
      const live = [
        ...held.entryVersionIds.filter((_, ordinal) => held.removed[ordinal] === 0),
        ...held.added.ids,
      ];
      const active = await cached.listEntries({ scopeId, revision: head, state: 'active', limit: 10_000 });
      expect(live.sort()).toEqual(active.map((version) => version.entryVersionId).sort());
      // (Not `counts.read`: under load a whole read begun by an earlier test can end during this one, and
      // is then discarded as older; the held object above is what shows that no read replaced it.)
      expect(cache.counts.caughtUp - caughtUp).toBe(writes.length);
      // A write this store did not make (another process's) is followed at the next search.
      await elsewhere.remember(scopeId, { entries: [{ text: 'granite harbour, written elsewhere' }] });
      const next = (await cached.head(scopeId))!.revision;
      expect(cache.latest(scopeId, profileId)?.revision).toBe(head);
      await expectSameAnswers(next);
      expect(cache.lookup(scopeId, profileId, next)).toBe(held);
      expect(cache.counts.caughtUp - caughtUp).toBe(writes.length + 1);
      // The revision the index was read at is answered exactly, by the scan.
      const asked = {
        scopeId,
        revision: start,
        profileId,
        vector: await vectorOf('harbour lantern'),
        limit: 40,
      };
      expect(await cached.vectorSearch(asked)).toEqual(await statement.vectorSearch(asked));
    });

    it('drops an index whose past a purge rewrote, and answers as the exact scan does', {
      timeout: 120_000,
    }, async () => {
      const head = (await cached.head(scopeId))!.revision;
      await holdIndex(head);
      const vector = await vectorOf('harbour lantern');
      const victim = (
        await cached.vectorSearch({ scopeId, revision: head, profileId, vector, limit: 1 })
      )[0]!;
      await service.purge(scopeId, { entryId: victim.entryId });
      // The revision the index was read at: the purge rewrote it, so the answer must not hold the entry.
      const asked = { scopeId, revision: head, profileId, vector, limit: 40 };
      const answer = await cached.vectorSearch(asked);
      expect(answer.map((candidate) => candidate.entryId)).not.toContain(victim.entryId);
      expect(answer).toEqual(await statement.vectorSearch(asked));
      // Read again after the purge, the index answers as the exact scan does.
      await holdIndex(head);
      expect(cache.lookup(scopeId, profileId, head)?.purgeMark).toBeGreaterThan(head);
      expect(await expectSameAnswers(head)).toBeGreaterThan(0);
    });
  });
}

describeSameAnswers('PostgreSQL', openMigratedPostgres);
describeSameAnswers('PGlite', openMigratedPGlite);
// On Citus too when POWERCONTEXT_TEST_CITUS_URL names a coordinator (RFC 0011): the index's reads
// and deltas are statements of one scope like the others.
if (openMigratedCitus) describeSameAnswers('Citus', openMigratedCitus);
