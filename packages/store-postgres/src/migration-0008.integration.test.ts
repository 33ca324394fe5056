import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { lexicalProjectionPolicy, type NewEntryVersion } from '@powercontext/memory-core';
import { Kysely, Migrator, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createPGliteMemoryStore, createPostgresMemoryStore } from './create-store.js';
import type { Database } from './database.js';
import { memoryMigrations } from './migrations/migrations.js';
import { openPGlite } from './pglite/open-pglite.js';
import { createPGliteDialect } from './pglite/pglite-driver.js';
import { PostgresMemoryStore } from './postgres-memory-store.js';
import { candidateTexts } from './testing-support/candidate-texts.js';
import { addEntryFieldsStandIn, dropEntryFieldsStandIn } from './testing-support/entry-fields-stand-in.js';
import { addScopeKeysStandIn, dropScopeKeysStandIn } from './testing-support/scope-keys-stand-in.js';
import { createTestDatabase } from './testing-support/test-database.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

const CONTEXT = lexicalProjectionPolicy([0.35, 0.175]);
const BM25 = { k1: 0.8, b: 0.75, delta: 0.5 };
const TEXTS = [
  'We met at the Café de Flore',
  // "½" folds to " 1/2", a word of its own: the fold changes this entry's length.
  'the espresso there was bitter at ½ price',
  'Zoë ordered a croissant',
  'a plain note about trains',
];
const REVISED = 'Zoë ordered a crêpe';
const QUERIES = ['cafe', 'café flore', 'zoe', 'croissant', 'crepe', 'espresso trains'];

/**
 * One scope through the store's own write path: four positioned entries (revision 1), then the third
 * revised (revision 2), so there are neighbour contexts, re-projected neighbours and superseded
 * projections that a search pinned to revision 1 still reads.
 */
async function writeScenario(store: PostgresMemoryStore, scopeId: string) {
  const entries: NewEntryVersion[] = TEXTS.map((text, order) => ({
    entryId: randomUUID(),
    entryVersionId: randomUUID(),
    version: 1,
    previousVersionId: null,
    kind: 'note',
    text,
    contentHash: `hash-${order}`,
    sources: [],
    position: { sourceId: 'day', order: [order] },
    metadata: {},
    tags: [],
    pinned: false,
    occurredAt: null,
    state: 'active',
  }));
  await store.write(scopeId, 0, (tx) => tx.appendRevision('remember', entries, CONTEXT));
  const third = entries[2]!;
  const revised: NewEntryVersion = {
    ...third,
    entryVersionId: randomUUID(),
    version: 2,
    previousVersionId: third.entryVersionId,
    text: REVISED,
    contentHash: 'hash-revised',
  };
  await store.write(scopeId, 1, (tx) => tx.appendRevision('revise', [revised], CONTEXT));
}

async function found(store: PostgresMemoryStore, scopeId: string, query: string, revision: number) {
  const { candidates } = await store.lexicalSearch({ scopeId, revision, query, limit: 10, bm25: BM25 });
  const texts = await candidateTexts(store, scopeId, candidates);
  return candidates.map((c, i) => [texts[i]!, Number(c.score.toFixed(9))] as const);
}

/**
 * Writes scopes the way the store did before migration 0008: schema 0006, and the store's write path
 * with `unaccent` standing for the identity, which is exactly the analysis it had
 * (`to_tsvector(config, text)`). The stand-in is dropped before the store opens the database again.
 */
async function writeBeforeFolding(db: Kysely<Database>) {
  const migrated = await new Migrator({ db, provider: memoryMigrations }).migrateTo('0006_ingest_write_path');
  expect(migrated.error).toBeUndefined();
  await sql`INSERT INTO pc_settings (key, value) VALUES ('text_search_config', 'english')`.execute(db);
  await sql`CREATE FUNCTION unaccent(text) RETURNS text LANGUAGE sql IMMUTABLE AS 'SELECT $1'`.execute(db);
  // Today's write path also fills the entity index (migration 0011), which the old schema lacks: a
  // stand-in takes its rows and goes with the function; 0011 then indexes the versions itself.
  await sql`CREATE TABLE pc_entities (scope_id text, entity text, entry_version_id uuid)`.execute(db);
  await addEntryFieldsStandIn(db);
  await addScopeKeysStandIn(db);
  const store = new PostgresMemoryStore({ db, textSearchConfig: 'english' });
  await writeScenario(store, 'old');
  await store.write('ascii', 0, (tx) =>
    tx.appendRevision(
      'remember',
      ['plain words only', 'more plain words'].map((text, order) => ({
        entryId: randomUUID(),
        entryVersionId: randomUUID(),
        version: 1,
        previousVersionId: null,
        kind: 'note',
        text,
        contentHash: `ascii-${order}`,
        sources: [],
        position: { sourceId: 'a', order: [order] },
        metadata: {},
        tags: [],
        pinned: false,
        occurredAt: null,
        state: 'active' as const,
      })),
      CONTEXT,
    ),
  );
  // The old analysis: the plain spelling does not find the accented word.
  expect(await found(store, 'old', 'cafe', 2)).toEqual([]);
  expect((await found(store, 'old', 'café', 2)).length).toBe(3);
  await sql`DROP FUNCTION unaccent(text)`.execute(db);
  await sql`DROP TABLE pc_entities`.execute(db);
  await dropEntryFieldsStandIn(db);
  await dropScopeKeysStandIn(db);
  return postingsOf(db, 'ascii');
}

function postingsOf(db: Kysely<Database>, scopeId: string) {
  return sql<{ lexeme: string; projection_id: string; tf: number }>`
    SELECT lexeme, projection_id::text, tf FROM pc_lexical_postings WHERE scope_id = ${scopeId}
    ORDER BY projection_id, lexeme`
    .execute(db)
    .then((result) => result.rows);
}

/** After the migration, the old scope answers exactly as the same writes made with folding do. */
async function expectFolded(store: PostgresMemoryStore) {
  await writeScenario(store, 'fresh');
  const cafe = (await found(store, 'old', 'cafe', 2)).map(([text]) => text).sort();
  // Its own words for the first entry; neighbour context for the next two.
  expect(cafe).toEqual([TEXTS[0], TEXTS[1], REVISED].sort());
  for (const revision of [1, 2]) {
    for (const query of QUERIES) {
      expect(await found(store, 'old', query, revision), `${query} at revision ${revision}`).toEqual(
        await found(store, 'fresh', query, revision),
      );
    }
  }
  // Revision 1 is read through the superseded projections, which were refolded too.
  expect((await found(store, 'old', 'zoe croissant', 1)).map(([text]) => text)).toContain(TEXTS[2]);
  expect(await store.lexicalProjectionState('old', 2, CONTEXT.id)).toMatchObject({ stale: 0 });
}

// Each test opens PGlite on disk several times: seconds per open on a busy two-core machine.
describe('migration 0008 (accent folding) on data written before it', { timeout: 120_000 }, () => {
  it('PGlite on disk: "cafe" finds "Café" at every revision, as if written with folding', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pc-migration-0008-'));
    dirs.push(dataDir);
    const { pglite, release } = await openPGlite(dataDir);
    const db = new Kysely<Database>({ dialect: createPGliteDialect(pglite) });
    let ascii: Awaited<ReturnType<typeof postingsOf>>;
    try {
      ascii = await writeBeforeFolding(db);
    } finally {
      await db.destroy();
      release();
    }
    const store = await createPGliteMemoryStore({ dataDir });
    try {
      await expectFolded(store);
    } finally {
      await store.close();
    }
    // Text without accents is not analysed again: its postings are the rows written before.
    const reopened = await openPGlite(dataDir);
    const check = new Kysely<Database>({ dialect: createPGliteDialect(reopened.pglite) });
    try {
      expect(await postingsOf(check, 'ascii')).toEqual(ascii);
    } finally {
      await check.destroy();
      reopened.release();
    }
    // Three opens of an on-disk PGlite: slow on a busy machine, so a generous timeout.
  }, 300_000);

  it('PostgreSQL: "cafe" finds "Café" at every revision, as if written with folding', async () => {
    const database = await createTestDatabase();
    try {
      const pool = new pg.Pool({ connectionString: database.connectionString, max: 1 });
      const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
      let ascii: Awaited<ReturnType<typeof postingsOf>>;
      try {
        ascii = await writeBeforeFolding(db);
      } finally {
        await db.destroy();
      }
      const store = await createPostgresMemoryStore({ connectionString: database.connectionString });
      try {
        await expectFolded(store);
      } finally {
        await store.close();
      }
      const after = new Kysely<Database>({
        dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.connectionString }) }),
      });
      try {
        expect(await postingsOf(after, 'ascii')).toEqual(ascii);
      } finally {
        await after.destroy();
      }
    } finally {
      await database.drop();
    }
  }, 120_000);
});
