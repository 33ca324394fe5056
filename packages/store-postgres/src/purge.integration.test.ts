import { randomUUID } from 'node:crypto';
import { lexicalProjectionPolicy, MemoryService } from '@powercontext/memory-core';
import { createFakeEmbedder } from '@powercontext/memory-core/testing';
import { createRrfRetrievalPolicy } from '@powercontext/retrieval-rrf';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from './database.js';
import { migrateToLatest } from './migrate.js';
import { openPGlite } from './pglite/open-pglite.js';
import { createPGliteDialect } from './pglite/pglite-driver.js';
import { PostgresMemoryStore } from './postgres-memory-store.js';
import { candidateTexts } from './testing-support/candidate-texts.js';
import { createTestDatabase, type TestDatabase } from './testing-support/test-database.js';

/** A word no other entry holds; the stemmer may shorten it, so its lexeme is looked for as well. */
const SECRET = 'zymurgyquokkas';

interface Backend {
  db: Kysely<Database>;
  store: PostgresMemoryStore;
}

/** Every table of the store's schema (the migration tables included), each row as text. */
async function rowsContaining(db: Kysely<Database>, needle: string): Promise<Record<string, number>> {
  const { rows: tables } = await sql<{ name: string }>`
    SELECT table_name AS name FROM information_schema.tables
    WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1`.execute(db);
  const found: Record<string, number> = {};
  for (const { name } of tables) {
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM ${sql.id(name)} t WHERE t::text ILIKE ${`%${needle}%`}`.execute(db);
    if ((rows[0]?.n ?? 0) > 0) found[name] = rows[0]!.n;
  }
  return found;
}

/**
 * Remembers the secret between two neighbours (so their projections hold its words), revises,
 * forgets and reactivates it, then purges it, and looks for it in every row of every table.
 */
function describePurgeLeavesNoRow(name: string, open: () => Promise<Backend>, close: () => Promise<void>) {
  describe(`purge on ${name}: no row of any table holds the purged text`, () => {
    let backend: Backend;
    beforeAll(async () => {
      backend = await open();
    }, 120_000);
    afterAll(close);

    it('erases text, metadata, sources, lexemes, vectors and neighbour context; keeps ids in the tombstone', {
      timeout: 120_000,
    }, async () => {
      const { db, store } = backend;
      const embedder = createFakeEmbedder();
      await store.prepareEmbeddingProfile(embedder.profile);
      const service = new MemoryService({
        store,
        embedder,
        retrievalPolicy: {
          ...createRrfRetrievalPolicy(),
          lexicalProjection: lexicalProjectionPolicy([0.5, 0.25]),
        },
      });
      const scopeId = `purge-${randomUUID()}`;
      const written = await service.remember(
        scopeId,
        {
          entries: [
            { text: 'zinnia walrus', position: { sourceId: 'chat', order: 0 } },
            {
              // The handle makes the secret an entity too (RFC 0013): its row must go as well.
              text: `the ${SECRET} vault code is 7741, ask @${SECRET}`,
              kind: 'fact',
              sources: [{ sourceId: `${SECRET}-chat`, locator: SECRET }],
              position: { sourceId: `chat`, order: 1 },
              metadata: { note: SECRET },
            },
            { text: 'mammoth fjord', position: { sourceId: 'chat', order: 2 } },
          ],
        },
        { idempotencyKey: 'k-remember' },
      );
      const entryId = written.entries[1]!.entryId;
      // Keyed writes: their stored answers (the revise's holds its text) must go with the entry.
      await service.revise(
        scopeId,
        { entryId, text: `${SECRET} vault code changed` },
        { idempotencyKey: 'k-revise' },
      );
      await service.forget(scopeId, { entryId }, { idempotencyKey: 'k-forget' });
      await service.reactivate(scopeId, { entryId });
      const { rows: lexemes } = await sql<{ lexeme: string }>`
        SELECT t.lexeme FROM unnest(to_tsvector('english', ${SECRET})) t`.execute(db);
      const needles = [SECRET, ...lexemes.map((row) => row.lexeme)];
      const { rows: versionRows } = await sql<{ id: string }>`
        SELECT entry_version_id::text AS id FROM pc_entry_versions WHERE entry_id = ${entryId}::uuid`.execute(
        db,
      );
      const versionIds = versionRows.map((row) => row.id);
      expect(versionIds).toHaveLength(4);

      // The check finds what is there: before the purge, the text, its lexemes and its ids.
      const before = new Set<string>();
      for (const needle of needles)
        for (const table of Object.keys(await rowsContaining(db, needle))) before.add(table);
      expect([...before]).toEqual(
        expect.arrayContaining([
          'pc_entry_versions',
          'pc_lexical_postings',
          'pc_idempotency_keys',
          'pc_entities',
        ]),
      );
      expect(Object.keys(await rowsContaining(db, versionIds[0]!))).toEqual(
        expect.arrayContaining([
          'pc_entry_versions',
          'pc_lexical_projections',
          'pc_embeddings',
          'pc_entities',
        ]),
      );

      const purged = await service.purge(
        scopeId,
        { entryId, purgedBy: 'ops-key' },
        { idempotencyKey: 'k-purge' },
      );
      for (const needle of needles) expect(await rowsContaining(db, needle), needle).toEqual({});
      // An erased version's id survives only in the tombstone tables and in the purge's own keyed
      // answer, which is the tombstone (never beside any text).
      for (const id of versionIds) {
        const where = await rowsContaining(db, id);
        expect(
          Object.keys(where).filter(
            (table) => !table.startsWith('pc_purged_') && table !== 'pc_idempotency_keys',
          ),
          id,
        ).toEqual([]);
      }
      const { rows: records } = await sql<{ key: string }>`
        SELECT idempotency_key AS key FROM pc_idempotency_keys WHERE scope_id = ${scopeId} ORDER BY 1`.execute(
        db,
      );
      expect(records.map((row) => row.key)).toEqual(['k-purge']);
      const { rows: orphans } = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM pc_lexical_postings l
        WHERE NOT EXISTS (SELECT 1 FROM pc_lexical_projections p WHERE p.projection_id = l.projection_id)`.execute(
        db,
      );
      expect(orphans[0]?.n).toBe(0);
      const { rows: revisions } = await sql<{ operation: string }>`
        SELECT r.operation FROM pc_revisions r JOIN pc_memories m ON m.artifact_id = r.artifact_id
        WHERE m.scope_id = ${scopeId} ORDER BY r.revision`.execute(db);
      expect(revisions.map((row) => row.operation)).toEqual([
        'remember',
        'revise',
        'forget',
        'reactivate',
        'purge',
      ]);
      expect(purged.tombstone.versions.map((v) => v.entryVersionId).sort()).toEqual([...versionIds].sort());
      // The head's statistics, moved by the purge, are what counting the head gives.
      const { rows: kept } = await sql<Record<string, number>>`
        SELECT s.revision, s.projections::int AS projections, s.projection_length AS length,
          s.active_entries::int AS active FROM pc_scope_statistics s WHERE s.scope_id = ${scopeId}`.execute(
        db,
      );
      const { rows: counted } = await sql<Record<string, number>>`
        SELECT ${purged.memory.revision}::int AS revision,
          (SELECT count(*)::int FROM pc_lexical_projections p WHERE p.scope_id = ${scopeId} AND p.superseded_revision IS NULL) AS projections,
          (SELECT sum(p.lexical_length) FROM pc_lexical_projections p WHERE p.scope_id = ${scopeId} AND p.superseded_revision IS NULL) AS length,
          (SELECT count(*)::int FROM pc_entry_versions v
           WHERE v.scope_id = ${scopeId} AND v.superseded_revision IS NULL AND v.state = 'active') AS active`.execute(
        db,
      );
      expect(kept[0]).toMatchObject({ ...counted[0], length: expect.closeTo(counted[0]!.length!, 9) });
      expect(counted[0]).toMatchObject({ projections: 2, active: 2 });
      expect((await service.search(scopeId, { query: `${SECRET} vault`, mode: 'fts' })).hits).toEqual([]);
      for (let revision = 1; revision <= purged.memory.revision; revision += 1) {
        const found = await store.entitySearch({ scopeId, revision, entities: [`@${SECRET}`], limit: 10 });
        expect(found.candidates, `entities at revision ${revision}`).toEqual([]);
      }
      // The neighbours still find each other at every revision, through their own and each other's words.
      for (let revision = 1; revision <= purged.memory.revision; revision += 1) {
        const { candidates } = await store.lexicalSearch({
          scopeId,
          revision,
          query: 'walrus',
          limit: 10,
          bm25: { k1: 1.2, b: 0, delta: 0 },
        });
        expect((await candidateTexts(store, scopeId, candidates)).sort()).toEqual([
          'mammoth fjord',
          'zinnia walrus',
        ]);
      }
    });
  });
}

let database: TestDatabase | undefined;
let pgBackend: Backend | undefined;
describePurgeLeavesNoRow(
  'PostgreSQL',
  async () => {
    database = await createTestDatabase();
    const pool = new pg.Pool({ connectionString: database.connectionString, max: 2 });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    await migrateToLatest(db, 'english');
    pgBackend = { db, store: new PostgresMemoryStore({ db, textSearchConfig: 'english' }) };
    return pgBackend;
  },
  async () => {
    await pgBackend?.store.close();
    await database?.drop();
  },
);

let pgliteBackend: Backend | undefined;
describePurgeLeavesNoRow(
  'PGlite',
  async () => {
    const { pglite, release } = await openPGlite(undefined);
    const db = new Kysely<Database>({ dialect: createPGliteDialect(pglite) });
    await migrateToLatest(db, 'english');
    pgliteBackend = {
      db,
      store: new PostgresMemoryStore({ db, textSearchConfig: 'english', onClose: release }),
    };
    return pgliteBackend;
  },
  async () => {
    await pgliteBackend?.store.close();
  },
);
