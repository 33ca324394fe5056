import { MemoryService } from '@powercontext/memory-core';
import { noSearchPolicy } from '@powercontext/memory-core/testing';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { Database } from './database.js';
import { type IndexBuildSessions, scopeIndexName } from './hnsw-indexes.js';
import { indexBuildSessions } from './index-build-sessions.js';
import { migrateToLatest } from './migrate.js';
import { hnswVectorSearch, PostgresMemoryStore } from './postgres-memory-store.js';
import { denseEmbedder } from './testing-support/dense-embedder.js';
import {
  type MigratedBackend,
  openMigratedPGlite,
  openMigratedPostgres,
} from './testing-support/migrated-backends.js';
import { undoScopeKeys } from './testing-support/scope-keys-stand-in.js';
import { createTestDatabase } from './testing-support/test-database.js';

const LIMIT = 300;
const embedder = denseEmbedder(48);
const texts = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, index) => ({ text: `${prefix} entry ${index}` }));

/** Bytes of the (profile, scope) HNSW index, or null when it does not exist. */
async function indexBytes(db: Kysely<Database>, scopeId: string): Promise<number | null> {
  const { rows } = await sql<{ bytes: string | null }>`
    SELECT pg_relation_size(to_regclass(${scopeIndexName(embedder.profile.id, scopeId)}))::text AS bytes`.execute(
    db,
  );
  return rows[0]?.bytes === null || rows[0]?.bytes === undefined ? null : Number(rows[0].bytes);
}

/** The names of the HNSW indexes over pc_embeddings, of either kind, sorted. */
async function hnswIndexes(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    SELECT indexname AS name FROM pg_indexes
    WHERE tablename = 'pc_embeddings' AND indexdef LIKE '%USING hnsw%' ORDER BY 1`.execute(db);
  return rows.map((row) => row.name);
}

async function planOf(db: Kysely<Database>, scopeId: string, revision: number): Promise<string> {
  const [vector] = await embedder.embed(['a query']);
  const query = { scopeId, revision, profileId: embedder.profile.id, vector: vector!, limit: 10 };
  const compiled = hnswVectorSearch(query).compile(db);
  const plan = await db.executeQuery<{ 'QUERY PLAN': string }>({
    ...compiled,
    sql: `EXPLAIN (COSTS OFF) ${compiled.sql}`,
  });
  return plan.rows.map((row) => row['QUERY PLAN']).join('\n');
}

/**
 * A scope past the limit gets an HNSW index of its own; writes into a small scope leave it untouched
 * (its size does not move, while a write into the large scope grows it: HNSW adds an element tuple per
 * vector), and the small scope's searches stay the exact scan's.
 */
async function expectWritesElsewhereLeaveTheIndex(open: () => Promise<MigratedBackend>) {
  const backend = await open();
  try {
    const { db } = backend;
    const store = new PostgresMemoryStore({ db, textSearchConfig: 'english', exactVectorScanLimit: LIMIT });
    const exact = new PostgresMemoryStore({ db, textSearchConfig: 'english' });
    await store.prepareEmbeddingProfile(embedder.profile);
    await exact.prepareEmbeddingProfile(embedder.profile);
    const service = new MemoryService({ store, embedder, retrievalPolicy: noSearchPolicy });
    await service.remember('large', { entries: texts('large', LIMIT + 50) });
    let small = await service.remember('small', { entries: texts('small', 50) });
    const built = await indexBytes(db, 'large');
    expect(built).toBeGreaterThan(0);
    expect(await indexBytes(db, 'small')).toBeNull();

    small = await service.remember('small', { entries: texts('more small', 200) });
    expect(await indexBytes(db, 'large')).toBe(built);
    const large = await service.remember('large', { entries: texts('more large', 200) });
    expect(await indexBytes(db, 'large')).toBeGreaterThan(built!);

    expect(await planOf(db, 'large', large.memory.revision)).toMatch(
      new RegExp(`Index Scan using ${scopeIndexName(embedder.profile.id, 'large')}`),
    );
    // The small scope's index does not exist, so its HNSW statement could only scan; its searches
    // answer exactly as a store that never builds an index.
    expect(await planOf(db, 'small', small.memory.revision)).not.toMatch(/scope_hnsw/);
    for (const text of ['small entry 3', 'more small entry 120', 'large entry 7']) {
      const [vector] = await embedder.embed([text]);
      const query = {
        scopeId: 'small',
        revision: small.memory.revision,
        profileId: embedder.profile.id,
        vector: vector!,
        limit: 10,
      };
      expect(await store.vectorSearch(query)).toEqual(await exact.vectorSearch(query));
    }
  } finally {
    await backend.close();
  }
}

/**
 * Migration 0014 drops the per-profile index of older databases; the store then builds the large
 * scope's own when it prepares the profile, and none for the small scope.
 */
async function expectMigrationToScopeIndexes(open: () => Promise<MigratedBackend>) {
  const backend = await open();
  try {
    const { db } = backend;
    const unindexed = new PostgresMemoryStore({
      db,
      textSearchConfig: 'english',
      exactVectorScanLimit: Number.MAX_SAFE_INTEGER,
    });
    await unindexed.prepareEmbeddingProfile(embedder.profile);
    const service = new MemoryService({ store: unindexed, embedder, retrievalPolicy: noSearchPolicy });
    const large = await service.remember('large', { entries: texts('large', LIMIT + 20) });
    await service.remember('small', { entries: texts('small', 20) });
    // The schema before 0014: one index over every scope's vectors of the profile.
    await sql
      .raw(
        `CREATE INDEX pc_embeddings_hnsw_0123456789abcdef01234567 ON pc_embeddings USING hnsw ((embedding::vector(48)) vector_cosine_ops) WHERE profile_id = '${embedder.profile.id}'`,
      )
      .execute(db);
    await undoScopeKeys(db);
    await sql`DELETE FROM kysely_migration WHERE name = '0014_scope_hnsw_indexes'`.execute(db);
    expect(await hnswIndexes(db)).toEqual(['pc_embeddings_hnsw_0123456789abcdef01234567']);

    const outcome = await migrateToLatest(db, 'english');
    expect(outcome.applied).toEqual(['0014_scope_hnsw_indexes', '0015_scope_keys']);
    expect(await hnswIndexes(db)).toEqual([]);

    const store = new PostgresMemoryStore({ db, textSearchConfig: 'english', exactVectorScanLimit: LIMIT });
    await store.prepareEmbeddingProfile(embedder.profile);
    expect(await hnswIndexes(db)).toEqual([scopeIndexName(embedder.profile.id, 'large')]);
    expect(await planOf(db, 'large', large.memory.revision)).toMatch(
      new RegExp(`Index Scan using ${scopeIndexName(embedder.profile.id, 'large')}`),
    );
    const [vector] = await embedder.embed(['large entry 5']);
    const hits = await store.vectorSearch({
      scopeId: 'large',
      revision: large.memory.revision,
      profileId: embedder.profile.id,
      vector: vector!,
      limit: 3,
    });
    expect(hits[0]?.score).toBeCloseTo(1, 5);
  } finally {
    await backend.close();
  }
}

/**
 * Deleting a scope (RFC 0015) drops its HNSW index and leaves every other scope's: built in the write's
 * transaction and dropped in place (PGlite), or built and dropped concurrently on a session of its own
 * (`builds`, PostgreSQL).
 */
async function expectDeleteToDropTheIndex(db: Kysely<Database>, builds?: IndexBuildSessions) {
  const store = new PostgresMemoryStore({
    db,
    textSearchConfig: 'english',
    exactVectorScanLimit: LIMIT,
    ...(builds ? { indexBuilds: builds } : {}),
  });
  await store.prepareEmbeddingProfile(embedder.profile);
  const service = new MemoryService({ store, embedder, retrievalPolicy: noSearchPolicy });
  await service.remember('doomed', { entries: texts('doomed', LIMIT + 20) });
  await service.remember('kept', { entries: texts('kept', LIMIT + 20) });
  await store.indexBuildsSettled();
  const both = [scopeIndexName(embedder.profile.id, 'doomed'), scopeIndexName(embedder.profile.id, 'kept')];
  expect(await hnswIndexes(db)).toEqual([...both].sort());

  const deleted = await service.deleteScope('doomed', { deletedBy: 'test' });
  expect(deleted.status).toBe('deleted');
  expect(await hnswIndexes(db)).toEqual([scopeIndexName(embedder.profile.id, 'kept')]);
}

describe('per-scope HNSW indexes', { timeout: 180_000 }, () => {
  it('PGlite: deleting a scope drops its index and keeps the others', async () => {
    const backend = await openMigratedPGlite();
    try {
      await expectDeleteToDropTheIndex(backend.db);
    } finally {
      await backend.close();
    }
  });

  it('PostgreSQL: deleting a scope drops its index concurrently and keeps the others', async () => {
    const database = await createTestDatabase();
    const db = new Kysely<Database>({
      dialect: new PostgresDialect({
        pool: new pg.Pool({ connectionString: database.connectionString, max: 3 }),
      }),
    });
    const builds = indexBuildSessions(pg, database.connectionString);
    try {
      await migrateToLatest(db, 'english');
      await expectDeleteToDropTheIndex(db, builds);
    } finally {
      await builds.close();
      await db.destroy();
      await database.drop();
    }
  });

  it('PostgreSQL: a write into a small scope does not touch the large scope’s index', async () => {
    await expectWritesElsewhereLeaveTheIndex(openMigratedPostgres);
  });

  it('PGlite: a write into a small scope does not touch the large scope’s index', async () => {
    await expectWritesElsewhereLeaveTheIndex(openMigratedPGlite);
  });

  it('PostgreSQL: migration 0014 replaces the per-profile index by the large scope’s own', async () => {
    await expectMigrationToScopeIndexes(openMigratedPostgres);
  });

  it('PGlite: migration 0014 replaces the per-profile index by the large scope’s own', async () => {
    await expectMigrationToScopeIndexes(openMigratedPGlite);
  });
});
