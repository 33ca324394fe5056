import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { MemoryService } from '@powercontext/memory-core';
import { createFakeEmbedder } from '@powercontext/memory-core/testing';
import { createRrfRetrievalPolicy } from '@powercontext/retrieval-rrf';
// The published entry, as an application imports it: dist/bundle/index.js, with kysely inlined
// (scripts/bundle-packages.mjs at the root). Not this package's sources.
import { type Database, migrateToLatest, PostgresMemoryStore } from '@powercontext/store-postgres';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from './testing-support/test-database.js';

const database = await createTestDatabase();
afterAll(() => database.drop());

describe('the published bundle of the store', () => {
  it('inlines kysely: the entry loads no kysely module of its own', () => {
    const entry = createRequire(import.meta.url).resolve('@powercontext/store-postgres');
    expect(entry).toMatch(/\/dist\/bundle\/index\.js$/u);
    expect(readFileSync(entry, 'utf8')).not.toMatch(/^import .* from ["']kysely["'];$/mu);
  });

  // PostgresMemoryStoreOptions.db and migrateToLatest take a Kysely: an application's own copy of
  // kysely, another instance than the one inlined in the store, must work with the store's statements.
  it("migrates, writes and searches through a caller's own Kysely", async () => {
    const db = new Kysely<Database>({
      dialect: new PostgresDialect({
        pool: new pg.Pool({ connectionString: database.connectionString, max: 2 }),
      }),
    });
    const store = new PostgresMemoryStore({ db, textSearchConfig: 'english' });
    try {
      const migrated = await migrateToLatest(db, 'english');
      expect(migrated.applied.length).toBeGreaterThan(0);
      const embedder = createFakeEmbedder();
      await store.prepareEmbeddingProfile(embedder.profile);
      const service = new MemoryService({ store, embedder, retrievalPolicy: createRrfRetrievalPolicy() });
      await service.remember('bundle', {
        entries: [{ text: 'the heron lantern hangs by the door' }, { text: 'copper meadow at dawn' }],
      });
      const found = await service.search('bundle', { query: 'heron lantern' });
      expect(found.hits.map((hit) => hit.text)).toContain('the heron lantern hangs by the door');
    } finally {
      await store.close();
    }
  });
});
