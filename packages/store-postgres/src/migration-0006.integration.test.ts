import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { lexicalProjectionPolicy, PLAIN_LEXICAL_PROJECTION } from '@powercontext/memory-core';
import { Kysely, Migrator, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createPGliteMemoryStore } from './create-store.js';
import type { Database } from './database.js';
import { memoryMigrations } from './migrations/migrations.js';
import { openPGlite } from './pglite/open-pglite.js';
import { createPGliteDialect } from './pglite/pglite-driver.js';
import { PostgresMemoryStore } from './postgres-memory-store.js';
import { candidateTexts } from './testing-support/candidate-texts.js';
import { addEntryFieldsStandIn, dropEntryFieldsStandIn } from './testing-support/entry-fields-stand-in.js';
import { addScopeKeysStandIn, dropScopeKeysStandIn } from './testing-support/scope-keys-stand-in.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

const TEXTS = [
  'the ferry leaves at noon',
  'bring the blue umbrella',
  'lunch by the harbour',
  'the ferry was late',
];

/** A scope written before migration 0006 (schema at 0004, the search storage), through the store itself. */
async function writeBefore0006(dataDir: string) {
  const { pglite, release } = await openPGlite(dataDir);
  const db = new Kysely<Database>({ dialect: createPGliteDialect(pglite) });
  try {
    const migrated = await new Migrator({ db, provider: memoryMigrations }).migrateTo('0004_search_storage');
    await addEntryFieldsStandIn(db);
    await addScopeKeysStandIn(db);
    expect(migrated.error).toBeUndefined();
    await sql`INSERT INTO pc_settings (key, value) VALUES ('text_search_config', 'english')`.execute(db);
    // The analysis before migration 0008 folded nothing: `unaccent` stands for the identity until then.
    await sql`CREATE FUNCTION unaccent(text) RETURNS text LANGUAGE sql IMMUTABLE AS 'SELECT $1'`.execute(db);
    // Postings rows refer to their projection through the foreign key this schema still has.
    const store = new PostgresMemoryStore({ db, textSearchConfig: 'english' });
    await store.write('s', 0, (tx) =>
      tx.appendRevision(
        'remember',
        TEXTS.map((text, order) => ({
          entryId: crypto.randomUUID(),
          entryVersionId: crypto.randomUUID(),
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
          state: 'active' as const,
        })),
        lexicalProjectionPolicy([0.5]),
      ),
    );
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM pg_constraint WHERE conname = 'pc_lexical_postings_projection_id_fkey'`.execute(
      db,
    );
    expect(rows[0]?.n).toBe(1);
    await sql`DROP FUNCTION unaccent(text)`.execute(db);
    await dropEntryFieldsStandIn(db);
    await dropScopeKeysStandIn(db);
  } finally {
    await db.destroy();
    release();
  }
}

// Each test opens PGlite on disk several times: seconds per open on a busy two-core machine.
describe('migration 0006 (ingest write path) on data written before it', { timeout: 120_000 }, () => {
  it('drops the unused GIN index and the postings key; search and a projection rebuild work as before', {
    timeout: 180_000,
  }, async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pc-migration-0006-'));
    dirs.push(dataDir);
    await writeBefore0006(dataDir);

    const store = await createPGliteMemoryStore({ dataDir });
    try {
      const search = async () => {
        const { candidates } = await store.lexicalSearch({
          scopeId: 's',
          revision: 1,
          query: 'ferry harbour',
          limit: 10,
          bm25: { k1: 1.2, b: 0.75, delta: 0 },
        });
        const texts = await candidateTexts(store, 's', candidates);
        return candidates.map((c, i) => [texts[i]!, Number(c.score.toFixed(9))] as const);
      };
      const before = await search();
      expect(before.map(([text]) => text).sort()).toEqual([
        'bring the blue umbrella',
        'lunch by the harbour',
        'the ferry leaves at noon',
        'the ferry was late',
      ]);
      // Rebuilt without neighbour context: the old postings go with their projections.
      expect(await store.rebuildLexicalProjection('s', PLAIN_LEXICAL_PROJECTION)).toBe(4);
      const plain = await search();
      expect(plain.map(([text]) => text).sort()).toEqual([
        'lunch by the harbour',
        'the ferry leaves at noon',
        'the ferry was late',
      ]);
      expect(await store.lexicalProjectionState('s', 1, PLAIN_LEXICAL_PROJECTION.id)).toMatchObject({
        stale: 0,
      });
    } finally {
      await store.close();
    }
    const { pglite, release } = await openPGlite(dataDir);
    try {
      const orphans = await pglite.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pc_lexical_postings l
         WHERE NOT EXISTS (SELECT 1 FROM pc_lexical_projections p WHERE p.projection_id = l.projection_id)`,
      );
      expect(orphans.rows[0]?.n).toBe(0);
      const gone = await pglite.query<{ index: string | null; byProjection: string | null; key: number }>(
        `SELECT to_regclass('pc_entry_versions_search')::text AS index,
           to_regclass('pc_lexical_postings_projection')::text AS "byProjection",
           (SELECT count(*)::int FROM pg_constraint WHERE conname = 'pc_lexical_postings_projection_id_fkey') AS key`,
      );
      expect(gone.rows[0]).toEqual({ index: null, byProjection: null, key: 0 });
    } finally {
      await pglite.close();
      release();
    }
  });
});
