import { randomUUID } from 'node:crypto';
import { MemoryService } from '@powercontext/memory-core';
import { createFakeEmbedder } from '@powercontext/memory-core/testing';
import { createRrfRetrievalPolicy } from '@powercontext/retrieval-rrf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LexicalIndexCache } from './lexical-index-cache.js';
import { PostgresMemoryStore } from './postgres-memory-store.js';
import {
  type MigratedBackend,
  openMigratedPGlite,
  openMigratedPostgres,
} from './testing-support/migrated-backends.js';
import { VectorIndexCache } from './vector-index-cache.js';

/**
 * Whole reads of the indexes in memory hold a connection each for as long as they run. A cold start
 * over many scopes must leave the pool to the searches: at most `backgroundReads` run at once, and the
 * scopes whose read found no room are read later, when their searches ask again (issue 28).
 */
function describeBoundedReads(name: string, open: () => Promise<MigratedBackend>) {
  describe(`whole reads of indexes in memory on ${name}`, () => {
    let backend: MigratedBackend;
    let store: PostgresMemoryStore;
    let lexical: LexicalIndexCache;
    const scopes = Array.from({ length: 6 }, (_, at) => `reads-${at}-${randomUUID()}`);
    const bm25 = createRrfRetrievalPolicy().bm25;

    beforeAll(async () => {
      backend = await open();
      lexical = new LexicalIndexCache({ minSearches: 1 });
      store = new PostgresMemoryStore({
        db: backend.db,
        textSearchConfig: 'english',
        lexicalIndexCache: lexical,
        vectorIndexCache: new VectorIndexCache({ minSearches: 1 }),
        backgroundReads: 2,
      });
      const embedder = createFakeEmbedder();
      await store.prepareEmbeddingProfile(embedder.profile);
      const service = new MemoryService({ store, embedder, retrievalPolicy: createRrfRetrievalPolicy() });
      for (const scopeId of scopes) {
        await service.remember(scopeId, {
          entries: Array.from({ length: 40 }, (_, at) => ({
            text: `harbour lantern note ${at} of ${scopeId}`,
          })),
        });
      }
    }, 120_000);
    afterAll(async () => {
      await store?.close().catch(() => {});
      await backend?.close();
    });

    it('runs at most two at once, and reads every scope in the end', { timeout: 120_000 }, async () => {
      const heads = new Map<string, number>();
      for (const scopeId of scopes) heads.set(scopeId, (await store.head(scopeId))!.revision);
      const searchAll = () =>
        Promise.all(
          scopes.map((scopeId) =>
            store.lexicalSearch({ scopeId, revision: heads.get(scopeId)!, query: 'harbour', limit: 5, bm25 }),
          ),
        );
      // Every scope asks for its read at once; two may start.
      await searchAll();
      await expect
        .poll(
          async () => {
            await searchAll();
            return scopes.filter((scopeId) => lexical.lookup(scopeId, heads.get(scopeId)!) !== undefined)
              .length;
          },
          { timeout: 60_000, interval: 50 },
        )
        .toBe(scopes.length);
      expect(store.indexCounts().backgroundReadsPeak).toBe(2);
    });
  });
}

describeBoundedReads('PostgreSQL', openMigratedPostgres);
describeBoundedReads('PGlite', openMigratedPGlite);
