import { MemoryService } from '@powercontext/memory-core';
import { noSearchPolicy } from '@powercontext/memory-core/testing';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresMemoryStore } from './create-store.js';
import type { Database } from './database.js';
import { hnswVectorSearch } from './postgres-memory-store.js';
import { denseEmbedder } from './testing-support/dense-embedder.js';
import { createTestDatabase, type TestDatabase } from './testing-support/test-database.js';

let database: TestDatabase;
let db: Kysely<Database>;
beforeAll(async () => {
  database = await createTestDatabase();
  db = new Kysely<Database>({
    dialect: new PostgresDialect({
      pool: new pg.Pool({ connectionString: database.connectionString, max: 1 }),
    }),
  });
});
afterAll(async () => {
  await db?.destroy();
  await database?.drop();
});

const ENTRIES = 600;
const LIMIT = 300;

describe('the HNSW path on PostgreSQL', () => {
  it('builds the scope’s index only once it outgrows the exact scan, walks it, and finds at least 95% of the exact top 10', async () => {
    const embedder = denseEmbedder(48);
    const exact = await createPostgresMemoryStore({ connectionString: database.connectionString });
    const approximate = await createPostgresMemoryStore({
      connectionString: database.connectionString,
      exactVectorScanLimit: LIMIT,
    });
    try {
      await approximate.prepareEmbeddingProfile(embedder.profile);
      await exact.prepareEmbeddingProfile(embedder.profile);
      const indexes = async () =>
        (
          await sql<{ indexname: string }>`
            SELECT indexname FROM pg_indexes WHERE tablename = 'pc_embeddings' AND indexname LIKE 'pc_embeddings_scope_hnsw_%'`.execute(
            db,
          )
        ).rows.length;
      const service = new MemoryService({ store: approximate, embedder, retrievalPolicy: noSearchPolicy });
      const texts = Array.from({ length: ENTRIES }, (_, index) => `entry number ${index}`);
      await service.remember('small', { entries: texts.slice(0, 50).map((text) => ({ text })) });
      expect(await indexes()).toBe(0);
      let revision = 0;
      for (let start = 0; start < ENTRIES; start += 200) {
        const written = await service.remember('large', {
          entries: texts.slice(start, start + 200).map((text) => ({ text })),
        });
        revision = written.memory.revision;
        // Built beside the writes (CREATE INDEX CONCURRENTLY) once a write took the scope past the limit,
        // not before.
        await approximate.indexBuildsSettled();
        expect(await indexes()).toBe(start + 200 > LIMIT ? 1 : 0);
      }

      const queries = await embedder.embed(Array.from({ length: 20 }, (_, index) => `query ${index}`));
      let found = 0;
      for (const vector of queries) {
        const query = { scopeId: 'large', revision, profileId: embedder.profile.id, vector, limit: 10 };
        const truth = (await exact.vectorSearch(query)).map((hit) => hit.entryVersionId);
        const hits = (await approximate.vectorSearch(query)).map((hit) => hit.entryVersionId);
        expect(hits).toHaveLength(10);
        found += hits.filter((id) => truth.includes(id)).length;

        const compiled = hnswVectorSearch(query).compile(db);
        const plan = await db.executeQuery<{ 'QUERY PLAN': string }>({
          ...compiled,
          sql: `EXPLAIN (COSTS OFF) ${compiled.sql}`,
        });
        const text = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
        expect(text).toMatch(/Index Scan using pc_embeddings_scope_hnsw_/);
      }
      expect(found / (queries.length * 10)).toBeGreaterThanOrEqual(0.95);
    } finally {
      await approximate.close();
      await exact.close();
    }
  });
});
