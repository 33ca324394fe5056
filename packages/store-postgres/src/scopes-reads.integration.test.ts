import { randomUUID } from 'node:crypto';
import {
  type EntryFilter,
  MemoryService,
  type MemoryStore,
  type ScopeAtRevision,
  type ScopesReads,
} from '@powercontext/memory-core';
import { createRrfRetrievalPolicy } from '@powercontext/retrieval-rrf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LexicalIndexCache } from './lexical-index-cache.js';
import { PostgresMemoryStore } from './postgres-memory-store.js';
import {
  type MigratedBackend,
  openMigratedPGlite,
  openMigratedPostgres,
} from './testing-support/migrated-backends.js';
import { createSparseEmbedder } from './testing-support/sparse-embedder.js';
import { wordCorpus } from './testing-support/word-corpus.js';
import { VectorIndexCache } from './vector-index-cache.js';

/**
 * The reads of several scopes at once (ScopesReads, RFC 0014 "Several scopes") must answer exactly what
 * the one-scope reads answer for each scope at its own revision: from the statements (indexes not held,
 * or an older revision) and from the indexes in memory, with and without a filter; and a search of
 * several scopes must answer the same with them as with one read per scope.
 */

const BATCHED = new Set<keyof ScopesReads>([
  'heads',
  'searchHeads',
  'entryVersionsOfScopes',
  'lexicalSearchScopes',
  'vectorSearchScopes',
]);

/** The store as one without reads of several scopes: every scope is read on its own. */
function perScope(store: PostgresMemoryStore): MemoryStore {
  return new Proxy(store, {
    get(target, property) {
      if (BATCHED.has(property as keyof ScopesReads)) return undefined;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const VOCABULARY =
  'harbour lantern orchid granite velvet thunder meadow copper falcon ember glacier saffron willow quartz'.split(
    ' ',
  );

/** Short deterministic texts over a small vocabulary, so terms repeat and scores tie. */
const corpus = (count: number, seed: number) =>
  wordCorpus(VOCABULARY, { count, seed, minWords: 1, spread: 6 });

/** Entries of a corpus; every third is tagged, every fifth a decision, for the filter. */
function entriesOf(texts: readonly string[]) {
  return texts.map((text, at) => ({
    text,
    ...(at % 3 === 0 ? { tags: ['harbour'] } : {}),
    ...(at % 5 === 0 ? { kind: 'decision' } : {}),
  }));
}

const QUERIES = ['harbour lantern', 'orchid granite velvet thunder', 'quartz', 'nothing here zzq'];
const FILTERS: (EntryFilter | undefined)[] = [undefined, { tagsAny: ['harbour'] }];
const LIMITS = [3, 40];

function describeScopesReads(name: string, open: () => Promise<MigratedBackend>) {
  describe(`reads of several scopes on ${name}`, () => {
    let backend: MigratedBackend;
    let lexical: LexicalIndexCache;
    let vectors: VectorIndexCache;
    /** With the indexes in memory (held after a first search) and the reads of several scopes. */
    let store: PostgresMemoryStore;
    /** Statements only: every channel answers from the database. */
    let plain: PostgresMemoryStore;
    let service: MemoryService;
    const embedder = createSparseEmbedder();
    const profileId = embedder.profile.id;
    const policy = createRrfRetrievalPolicy();
    const [a, b, c] = ['a', 'b', 'c'].map((name) => `scopes-reads-${name}-${randomUUID()}`) as [
      string,
      string,
      string,
    ];
    const never = `never-written-${randomUUID()}`;

    beforeAll(async () => {
      backend = await open();
      lexical = new LexicalIndexCache({ minSearches: 1 });
      vectors = new VectorIndexCache({ minSearches: 1 });
      const options = { db: backend.db, textSearchConfig: 'english' };
      store = new PostgresMemoryStore({ ...options, lexicalIndexCache: lexical, vectorIndexCache: vectors });
      plain = new PostgresMemoryStore({ ...options, lexicalIndexCache: false, vectorIndexCache: false });
      await store.prepareEmbeddingProfile(embedder.profile);
      service = new MemoryService({ store, embedder, retrievalPolicy: policy });
      // Three scopes at different heads: a at 4 (a revision and a forget among them), b at 1, c at 2.
      await service.remember(a, { entries: entriesOf(corpus(60, 3)) });
      await service.remember(a, { entries: entriesOf(corpus(40, 5)) });
      const listed = await store.listEntries({ scopeId: a, revision: 2, state: 'active', limit: 2 });
      await service.revise(a, { entryId: listed[0]!.entryId, text: 'harbour lantern quartz quartz' });
      await service.forget(a, { entryId: listed[1]!.entryId });
      await service.remember(b, { entries: entriesOf(corpus(50, 7)) });
      await service.remember(c, { entries: entriesOf(corpus(30, 11)) });
      await service.remember(c, { entries: entriesOf(corpus(30, 13)) });
    }, 120_000);
    afterAll(async () => {
      await store?.close().catch(() => {});
      await backend?.close();
    });

    async function headsOf(scopeIds: readonly string[]): Promise<ScopeAtRevision[]> {
      return Promise.all(
        scopeIds.map(async (scopeId) => ({ scopeId, revision: (await plain.head(scopeId))!.revision })),
      );
    }

    /** Both channels' reads of several scopes answer as the statements of each scope alone. */
    async function expectSameChannelReads(scopes: readonly ScopeAtRevision[]): Promise<void> {
      for (const text of QUERIES) {
        const [vector] = await embedder.embed([text]);
        for (const filter of FILTERS) {
          for (const limit of LIMITS) {
            const shared = { limit, ...(filter ? { filter } : {}) };
            const lexicalQuery = { ...shared, query: text, bm25: policy.bm25 };
            const label = `${text} (limit ${limit}, ${filter ? 'filtered' : 'unfiltered'})`;
            expect(await store.lexicalSearchScopes(lexicalQuery, scopes), label).toEqual(
              await Promise.all(scopes.map((scope) => plain.lexicalSearch({ ...lexicalQuery, ...scope }))),
            );
            const vectorQuery = { ...shared, profileId, vector: vector! };
            expect(await store.vectorSearchScopes(vectorQuery, scopes), label).toEqual(
              await Promise.all(scopes.map((scope) => plain.vectorSearch({ ...vectorQuery, ...scope }))),
            );
          }
        }
      }
    }

    it('reads heads and entry versions of several scopes as of each scope alone', async () => {
      const scopeIds = [a, never, b, c];
      expect(await store.searchHeads(scopeIds, profileId)).toEqual(
        await Promise.all(scopeIds.map((scopeId) => plain.searchHead(scopeId, profileId))),
      );
      const heads = await store.heads(scopeIds);
      expect(heads).toEqual(await Promise.all(scopeIds.map((scopeId) => plain.head(scopeId))));
      expect(heads.map((head) => head?.revision)).toEqual([4, undefined, 1, 2]);

      // Versions of a's first revision (two of them superseded since), and one of b's asked of a.
      const ofA = await plain.listEntries({ scopeId: a, revision: 1, state: 'all', limit: 8 });
      const ofB = await plain.listEntries({ scopeId: b, revision: 1, state: 'all', limit: 3 });
      const reads = [
        { scopeId: a, entryVersionIds: [...ofA, ofB[0]!].map((version) => version.entryVersionId) },
        { scopeId: b, entryVersionIds: ofB.map((version) => version.entryVersionId) },
        { scopeId: c, entryVersionIds: [randomUUID()] },
      ];
      const found = await store.entryVersionsOfScopes(reads);
      expect(found).toEqual(
        await Promise.all(reads.map((read) => plain.entryVersions(read.scopeId, read.entryVersionIds))),
      );
      expect(found.map((versions) => versions.size)).toEqual([8, 3, 0]);
      expect(found[0]!.has(ofB[0]!.entryVersionId)).toBe(false);
    });

    it('answers each scope at its own revision, older ones included, as the statements of it alone', {
      timeout: 120_000,
    }, async () => {
      await expectSameChannelReads([
        { scopeId: a, revision: 1 },
        { scopeId: b, revision: 1 },
        { scopeId: c, revision: 1 },
      ]);
      await expectSameChannelReads([
        { scopeId: c, revision: 2 },
        { scopeId: a, revision: 3 },
      ]);
    });

    it('answers every scope from its indexes in memory once they are held, as the statements do', {
      timeout: 120_000,
    }, async () => {
      const scopes = await headsOf([a, b, c]);
      const [vector] = await embedder.embed(['harbour']);
      await expect
        .poll(
          async () => {
            // Each search the statements answer counts toward (and starts) the read of the indexes.
            await store.lexicalSearchScopes({ query: 'harbour', limit: 5, bm25: policy.bm25 }, scopes);
            await store.vectorSearchScopes({ profileId, vector: vector!, limit: 5 }, scopes);
            return scopes.every(
              ({ scopeId, revision }) =>
                lexical.lookup(scopeId, revision) !== undefined &&
                vectors.lookup(scopeId, profileId, revision) !== undefined,
            );
          },
          { timeout: 30_000, interval: 100 },
        )
        .toBe(true);
      const [lexicalAnswered, vectorAnswered] = [lexical.counts.answered, vectors.counts.answered];
      await expectSameChannelReads(scopes);
      const reads = QUERIES.length * FILTERS.length * LIMITS.length * scopes.length;
      // Every lexical answer came from memory; the vector index hands the database only the versions
      // that may be among the best, and leaves a query with too many of them to the exact scan.
      expect(lexical.counts.answered - lexicalAnswered).toBe(reads);
      expect(vectors.counts.answered - vectorAnswered).toBeGreaterThanOrEqual(reads / 2);
    });

    it('searches several scopes the same with these reads as with one read per scope', {
      timeout: 120_000,
    }, async () => {
      const alone = new MemoryService({ store: perScope(store), embedder, retrievalPolicy: policy });
      const scopeIds = [c, never, a, b];
      for (const mode of ['fts', 'vector', 'hybrid'] as const) {
        for (const query of QUERIES) {
          for (const filter of [undefined, { tagsAny: ['harbour'] }]) {
            const request = { query, mode, limit: 7, ...(filter ? { filter } : {}) };
            const result = await service.searchScopes(scopeIds, request, { explain: true });
            expect(result, `${mode}: ${query}`).toEqual(
              await alone.searchScopes(scopeIds, request, { explain: true }),
            );
            expect(result.scopes.map((scope) => scope.memory?.revision)).toEqual([2, undefined, 4, 1]);
          }
        }
      }
    });

    it('refuses a deleted scope as the read of it alone does', async () => {
      const deleted = `scopes-reads-deleted-${randomUUID()}`;
      await service.remember(deleted, { entries: [{ text: 'harbour' }] });
      await store.deleteScope(deleted, null);
      const refusal = { code: 'scope_purged', tombstone: { scopeId: deleted } };
      await expect(plain.searchHead(deleted, profileId)).rejects.toMatchObject(refusal);
      await expect(store.searchHeads([a, deleted], profileId)).rejects.toMatchObject(refusal);
      await expect(store.heads([a, deleted])).rejects.toMatchObject(refusal);
    });
  });
}

describeScopesReads('PGlite', openMigratedPGlite);
describeScopesReads('PostgreSQL', openMigratedPostgres);
