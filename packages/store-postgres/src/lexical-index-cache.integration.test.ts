import { randomUUID } from 'node:crypto';
import { type LexicalSearchQuery, lexicalProjectionPolicy, MemoryService } from '@powercontext/memory-core';
import { createFakeEmbedder } from '@powercontext/memory-core/testing';
import { createRrfRetrievalPolicy } from '@powercontext/retrieval-rrf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LexicalIndexCache } from './lexical-index-cache.js';
import { PostgresMemoryStore } from './postgres-memory-store.js';
import {
  type MigratedBackend,
  openMigratedCitus,
  openMigratedPGlite,
  openMigratedPostgres,
} from './testing-support/migrated-backends.js';
import { wordCorpus } from './testing-support/word-corpus.js';

/**
 * The lexical index in memory (RFC 0002) must answer what the lexical statement answers: the same
 * candidates, in the same order, with the same scores and matched terms, for any query, limit and
 * revision it holds, and never a revision's past that a purge has rewritten.
 */

const VOCABULARY = [
  'harbour',
  'lantern',
  'orchid',
  'granite',
  'velvet',
  'thunder',
  'meadow',
  'copper',
  'falcon',
  'ember',
  'glacier',
  'saffron',
  'willow',
  'quartz',
  'ripple',
  'cobalt',
  'juniper',
  'marble',
  'tundra',
  'zephyr',
  'running',
  'runs',
  'ran',
  'the',
  'and',
  'of',
  'café',
  'naïve',
  '2024',
  'x-ray',
];

/** A deterministic corpus: short turns over a small vocabulary, so terms repeat and scores tie. */
const corpus = (count: number, seed: number) =>
  wordCorpus(VOCABULARY, { count, seed, minWords: 2, spread: 9 });

const QUERIES = [
  'harbour lantern',
  'the orchid of granite',
  'velvet thunder meadow copper falcon ember glacier',
  'running ran runs',
  'cafe naive',
  'x-ray 2024',
  'nothing matches zzzq',
  'the and of',
  'saffron',
  'willow quartz ripple cobalt juniper marble tundra zephyr',
];

function describeSameAnswers(name: string, open: () => Promise<MigratedBackend>) {
  describe(`the lexical index in memory on ${name}`, () => {
    let backend: MigratedBackend;
    let cache: LexicalIndexCache;
    let cached: PostgresMemoryStore;
    let statement: PostgresMemoryStore;
    let service: MemoryService;
    /** Writes as another process would: through a store that holds no index. */
    let elsewhere: MemoryService;
    const scopeId = `lexical-cache-${randomUUID()}`;
    const bm25 = createRrfRetrievalPolicy().bm25;

    beforeAll(async () => {
      backend = await open();
      cache = new LexicalIndexCache({ minSearches: 1 });
      cached = new PostgresMemoryStore({
        db: backend.db,
        distribution: backend.distribution ?? 'none',
        textSearchConfig: 'english',
        lexicalIndexCache: cache,
      });
      statement = new PostgresMemoryStore({
        db: backend.db,
        distribution: backend.distribution ?? 'none',
        textSearchConfig: 'english',
        lexicalIndexCache: false,
      });
      const embedder = createFakeEmbedder();
      await cached.prepareEmbeddingProfile(embedder.profile);
      const retrievalPolicy = {
        ...createRrfRetrievalPolicy(),
        lexicalProjection: lexicalProjectionPolicy([0.5, 0.25]),
      };
      service = new MemoryService({ store: cached, embedder, retrievalPolicy });
      elsewhere = new MemoryService({ store: statement, embedder, retrievalPolicy });
      const texts = corpus(240, 7);
      for (let start = 0; start < texts.length; start += 80) {
        await service.remember(scopeId, {
          entries: texts.slice(start, start + 80).map((text, offset) => ({
            text,
            position: {
              sourceId: `conversation-${Math.floor((start + offset) / 20)}`,
              order: (start + offset) % 20,
            },
          })),
        });
      }
    }, 120_000);
    afterAll(async () => {
      await cached?.close().catch(() => {});
      await backend?.close();
    });

    /** Searches through the statement, lets the cache read the index, and waits until it holds it. */
    async function holdIndex(revision: number): Promise<void> {
      await expect
        .poll(
          async () => {
            // Each search the statement answers counts toward (and, past the cool-down, starts) a read.
            await cached.lexicalSearch({ scopeId, revision, query: 'harbour', limit: 5, bm25 });
            return cache.lookup(scopeId, revision) !== undefined;
          },
          { timeout: 30_000, interval: 100 },
        )
        .toBe(true);
    }

    async function expectSameAnswers(revision: number) {
      const answered = cache.counts.answered;
      for (const query of QUERIES) {
        for (const limit of [1, 7, 40, 500]) {
          const asked: LexicalSearchQuery = { scopeId, revision, query, limit, bm25 };
          const [fromMemory, fromStatement] = [
            await cached.lexicalSearch(asked),
            await statement.lexicalSearch(asked),
          ];
          expect(fromMemory, `${query} (limit ${limit})`).toEqual(fromStatement);
        }
      }
      // Every one of those answers came from the index in memory, none from the statement.
      expect(cache.counts.answered - answered).toBe(QUERIES.length * 4);
    }

    it('answers every query as the statement does, ties and limits included', {
      timeout: 120_000,
    }, async () => {
      const head = (await cached.head(scopeId))!.revision;
      await holdIndex(head);
      await expectSameAnswers(head);
      const first = await statement.lexicalSearch({
        scopeId,
        revision: head,
        query: 'harbour lantern',
        limit: 40,
        bm25,
      });
      expect(first.candidates.length).toBeGreaterThan(5);
    });

    it("answers a new revision (revised, forgotten entries, another process's writes) as the statement does", {
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
      expect(cache.lookup(scopeId, head)).toBeUndefined();
      await holdIndex(head);
      await expectSameAnswers(head);
    });

    it("follows writes by their delta: its own before the write returns, another process's at the first search after them, as the statement answers", {
      timeout: 120_000,
    }, async () => {
      const start = (await cached.head(scopeId))!.revision;
      await holdIndex(start);
      const held = cache.lookup(scopeId, start)!;
      const caughtUp = cache.counts.caughtUp;
      const listed = await cached.listEntries({ scopeId, revision: start, state: 'active', limit: 30 });
      // Each kind of write: new entries in an existing source (their neighbours are re-projected), an
      // unpositioned entry, a revision, a forget; then several writes of another process before one search.
      const writes: (() => Promise<unknown>)[] = [
        () =>
          service.remember(scopeId, {
            entries: corpus(3, 99).map((text, offset) => ({
              text: `${text} harbour`,
              position: { sourceId: 'conversation-2', order: 20.5 + offset },
            })),
          }),
        () => service.remember(scopeId, { entries: [{ text: 'zephyr lantern glacier, quite new words' }] }),
        () => service.revise(scopeId, { entryId: listed[3]!.entryId, text: 'orchid orchid granite velvet' }),
        () => service.forget(scopeId, { entryId: listed[4]!.entryId }),
      ];
      for (const write of writes) {
        await write();
        const revision = (await cached.head(scopeId))!.revision;
        // Moved forward by the write itself, before any search.
        expect(cache.latest(scopeId)?.revision).toBe(revision);
        await expectSameAnswers(revision);
      }
      const before = (await cached.head(scopeId))!.revision;
      for (const entry of listed.slice(10, 14)) {
        await elsewhere.revise(scopeId, { entryId: entry.entryId, text: `${entry.text} thunder meadow` });
      }
      const head = (await cached.head(scopeId))!.revision;
      expect(cache.latest(scopeId)?.revision).toBe(before);
      await expectSameAnswers(head);
      // One index, moved forward in place: no whole read was needed.
      expect(cache.lookup(scopeId, head)).toBe(held);
      // (Not `counts.read`: under load a whole read begun by an earlier test can end during this one, and
      // is then discarded as older; the held object above is what shows that no read replaced it.)
      expect(cache.counts.caughtUp - caughtUp).toBe(writes.length + 1);
      // A revision older than the one held is answered by the statement, and still the same.
      const older = { scopeId, revision: start, query: 'harbour lantern', limit: 40, bm25 };
      const answered = cache.counts.answered;
      expect(await cached.lexicalSearch(older)).toEqual(await statement.lexicalSearch(older));
      expect(cache.counts.answered).toBe(answered);
    });

    it('refuses an index over its share of the budget before its postings reach the process, and reads it no more', {
      timeout: 120_000,
    }, async () => {
      // 240 projections take about 48,000 estimated bytes before any posting: over a quarter of 100,000.
      const small = new LexicalIndexCache({ minSearches: 1, maxBytes: 100_000 });
      const bounded = new PostgresMemoryStore({
        db: backend.db,
        distribution: backend.distribution ?? 'none',
        textSearchConfig: 'english',
        lexicalIndexCache: small,
      });
      const head = (await cached.head(scopeId))!.revision;
      const asked = { scopeId, revision: head, query: 'harbour lantern', limit: 40, bm25 };
      await expect
        .poll(
          async () => {
            expect(await bounded.lexicalSearch(asked)).toEqual(await statement.lexicalSearch(asked));
            return small.counts.refused;
          },
          { timeout: 30_000, interval: 100 },
        )
        .toBe(1);
      // Searched again and again, the scope is not read again while it is no smaller.
      for (let search = 0; search < 20; search++) await bounded.lexicalSearch(asked);
      expect(small.counts).toMatchObject({ refused: 1, read: 0, answered: 0 });
      expect(small.lookup(scopeId, head)).toBeUndefined();
    });

    it('drops an index whose past a purge rewrote, and answers as the statement does', {
      timeout: 120_000,
    }, async () => {
      const head = (await cached.head(scopeId))!.revision;
      await holdIndex(head);
      const victim = (
        await cached.lexicalSearch({ scopeId, revision: head, query: 'harbour lantern', limit: 1, bm25 })
      ).candidates[0]!;
      await service.purge(scopeId, { entryId: victim.entryId });
      // The revision the index was read at: the purge rewrote it, so the answer must not hold the entry.
      const asked = { scopeId, revision: head, query: 'harbour lantern', limit: 40, bm25 };
      const answer = await cached.lexicalSearch(asked);
      expect(answer.candidates.map((candidate) => candidate.entryId)).not.toContain(victim.entryId);
      expect(answer).toEqual(await statement.lexicalSearch(asked));
      // Read again after the purge, the index answers as the statement does.
      await holdIndex(head);
      expect(cache.lookup(scopeId, head)?.purgeMark).toBeGreaterThan(head);
      await expectSameAnswers(head);
    });
  });
}

describeSameAnswers('PostgreSQL', openMigratedPostgres);
describeSameAnswers('PGlite', openMigratedPGlite);
// On Citus too when POWERCONTEXT_TEST_CITUS_URL names a coordinator (RFC 0011): the index's reads
// and deltas are statements of one scope like the others.
if (openMigratedCitus) describeSameAnswers('Citus', openMigratedCitus);
