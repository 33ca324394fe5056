import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { EntryPurgedError, lexicalProjectionPolicy, MemoryService } from '@powercontext/memory-core';
import { createFakeEmbedder } from '@powercontext/memory-core/testing';
import { createRrfRetrievalPolicy } from '@powercontext/retrieval-rrf';
import { Kysely, Migrator, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createPGliteMemoryStore, createPostgresMemoryStore } from './create-store.js';
import type { Database } from './database.js';
import { memoryMigrations } from './migrations/migrations.js';
import { openPGlite } from './pglite/open-pglite.js';
import { createPGliteDialect } from './pglite/pglite-driver.js';
import { PostgresMemoryStore } from './postgres-memory-store.js';
import { addEntryFieldsStandIn, dropEntryFieldsStandIn } from './testing-support/entry-fields-stand-in.js';
import { addScopeKeysStandIn, dropScopeKeysStandIn } from './testing-support/scope-keys-stand-in.js';
import { createTestDatabase } from './testing-support/test-database.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** A word no other entry holds. */
const SECRET = 'quillwortzephyr';
const SCOPE = 'before-purge';

function serviceOver(store: PostgresMemoryStore) {
  return new MemoryService({
    store,
    embedder: createFakeEmbedder(),
    retrievalPolicy: {
      ...createRrfRetrievalPolicy(),
      lexicalProjection: lexicalProjectionPolicy([0.5, 0.25]),
    },
  });
}

/**
 * Writes a scope at schema 0008 (the last one before purge) through the store's own write path, with
 * idempotency keys: three positioned entries, the middle one holding the secret, then revised with a
 * key (its stored answer holds the revised text). Returns the middle entry's id.
 */
async function writeBeforePurge(db: Kysely<Database>): Promise<string> {
  const migrated = await new Migrator({ db, provider: memoryMigrations }).migrateTo('0008_accent_folding');
  expect(migrated.error).toBeUndefined();
  await addEntryFieldsStandIn(db);
  await addScopeKeysStandIn(db);
  await sql`INSERT INTO pc_settings (key, value) VALUES ('text_search_config', 'english')`.execute(db);
  const store = new PostgresMemoryStore({ db, textSearchConfig: 'english' });
  await store.prepareEmbeddingProfile(createFakeEmbedder().profile);
  const service = serviceOver(store);
  const written = await service.remember(
    SCOPE,
    {
      entries: [
        { text: 'heron lantern', position: { sourceId: 'talk', order: 0 } },
        { text: `the ${SECRET} door code is 5512`, position: { sourceId: 'talk', order: 1 } },
        { text: 'copper meadow', position: { sourceId: 'talk', order: 2 } },
      ],
    },
    { idempotencyKey: 'old-remember' },
  );
  const entryId = written.entries[1]!.entryId;
  await service.revise(
    SCOPE,
    { entryId, text: `${SECRET} door code changed` },
    { idempotencyKey: 'old-revise' },
  );
  const { rows } = await sql<{
    table: string | null;
  }>`SELECT to_regclass('pc_purged_entries')::text AS table`.execute(db);
  expect(rows[0]?.table).toBeNull();
  await dropEntryFieldsStandIn(db);
  await dropScopeKeysStandIn(db);
  return entryId;
}

/** Rows of the store's tables whose text holds the secret, by table. */
async function tablesHolding(db: Kysely<Database>): Promise<string[]> {
  const { rows: tables } = await sql<{ name: string }>`
    SELECT table_name AS name FROM information_schema.tables
    WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1`.execute(db);
  const holding: string[] = [];
  for (const { name } of tables) {
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM ${sql.id(name)} t WHERE t::text ILIKE ${`%${SECRET}%`}`.execute(db);
    if ((rows[0]?.n ?? 0) > 0) holding.push(name);
  }
  return holding;
}

/** After the migration, the entry written before it is purged like any other, keyed answers included. */
async function expectPurgeable(store: PostgresMemoryStore, entryId: string) {
  const service = serviceOver(store);
  const purged = await service.purge(SCOPE, { entryId, purgedBy: 'ops' }, { idempotencyKey: 'new-purge' });
  expect(purged).toMatchObject({ status: 'purged', memory: { revision: 3 }, tombstone: { version: 3 } });
  expect(purged.tombstone.versions.map((v) => v.version)).toEqual([1, 2]);
  await expect(service.get(SCOPE, { entryId, revision: 1 })).rejects.toBeInstanceOf(EntryPurgedError);
  // The revise's stored answer (its text) went with the entry: the old key no longer replays.
  await expect(
    service.revise(SCOPE, { entryId, text: `${SECRET} door code changed` }, { idempotencyKey: 'old-revise' }),
  ).rejects.toBeInstanceOf(EntryPurgedError);
  expect(await service.purge(SCOPE, { entryId, purgedBy: 'ops' }, { idempotencyKey: 'new-purge' })).toEqual({
    ...purged,
    replayed: true,
  });
  const hits = await service.search(SCOPE, { query: 'heron meadow', mode: 'fts' });
  expect(hits.hits.map((hit) => hit.entry.text).sort()).toEqual(['copper meadow', 'heron lantern']);
}

// Each test opens PGlite on disk several times: seconds per open on a busy two-core machine.
describe('migration 0009 (purge) on data written before it', { timeout: 120_000 }, () => {
  it('PGlite on disk: an entry written at schema 0008 is erased from every table', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pc-migration-0009-'));
    dirs.push(dataDir);
    const { pglite, release } = await openPGlite(dataDir);
    const db = new Kysely<Database>({ dialect: createPGliteDialect(pglite) });
    let entryId: string;
    try {
      entryId = await writeBeforePurge(db);
      expect(await tablesHolding(db)).toEqual(
        expect.arrayContaining(['pc_entry_versions', 'pc_idempotency_keys', 'pc_lexical_postings']),
      );
    } finally {
      await db.destroy();
      release();
    }
    const store = await createPGliteMemoryStore({ dataDir });
    try {
      await expectPurgeable(store, entryId);
    } finally {
      await store.close();
    }
    const reopened = await openPGlite(dataDir);
    const check = new Kysely<Database>({ dialect: createPGliteDialect(reopened.pglite) });
    try {
      expect(await tablesHolding(check)).toEqual([]);
    } finally {
      await check.destroy();
      reopened.release();
    }
    // Three opens of an on-disk PGlite: slow on a busy machine, so a generous timeout.
  }, 300_000);

  it('PostgreSQL: an entry written at schema 0008 is erased from every table', async () => {
    const database = await createTestDatabase();
    try {
      const pool = new pg.Pool({ connectionString: database.connectionString, max: 1 });
      const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
      let entryId: string;
      try {
        entryId = await writeBeforePurge(db);
        expect(await tablesHolding(db)).toEqual(
          expect.arrayContaining(['pc_entry_versions', 'pc_idempotency_keys', 'pc_lexical_postings']),
        );
      } finally {
        await db.destroy();
      }
      const store = await createPostgresMemoryStore({ connectionString: database.connectionString });
      try {
        await expectPurgeable(store, entryId);
      } finally {
        await store.close();
      }
      const after = new Kysely<Database>({
        dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.connectionString }) }),
      });
      try {
        expect(await tablesHolding(after)).toEqual([]);
      } finally {
        await after.destroy();
      }
    } finally {
      await database.drop();
    }
  }, 120_000);
});
