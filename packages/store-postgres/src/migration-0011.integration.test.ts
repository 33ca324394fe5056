import { MemoryService } from '@powercontext/memory-core';
import { createFakeEmbedder } from '@powercontext/memory-core/testing';
import { createRrfRetrievalPolicy } from '@powercontext/retrieval-rrf';
import { type Kysely, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Database } from './database.js';
import { migrateToLatest } from './migrate.js';
import { PostgresMemoryStore } from './postgres-memory-store.js';
import { undoEntryFields } from './testing-support/entry-fields-stand-in.js';
import {
  type MigratedBackend,
  openMigratedPGlite,
  openMigratedPostgres,
} from './testing-support/migrated-backends.js';
import { undoScopeKeys } from './testing-support/scope-keys-stand-in.js';

const SCOPE = 'before-entities';

/** The entity rows of the database, as sorted text. */
async function entityRows(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{ row: string }>`
    SELECT scope_id || ' ' || entity || ' ' || entry_version_id AS row FROM pc_entities ORDER BY 1`.execute(
    db,
  );
  return rows.map((item) => item.row);
}

/**
 * Migration 0011 adds the entity index and fills it for versions written before it. The test writes a
 * scope through the store (which indexes entities at write time), then takes the database back to
 * schema 0010 (the table and its migration record gone; the version rows are what 0010 wrote), migrates
 * again, and expects the backfill to give exactly the rows the write path gave, active versions only.
 */
async function expectBackfillEqualsWritePath(open: () => Promise<MigratedBackend>) {
  const backend = await open();
  try {
    const { db } = backend;
    const store = new PostgresMemoryStore({ db, textSearchConfig: 'english' });
    const embedder = createFakeEmbedder();
    await store.prepareEmbeddingProfile(embedder.profile);
    const service = new MemoryService({
      store,
      embedder,
      retrievalPolicy: createRrfRetrievalPolicy(),
    });
    const { entries } = await service.remember(SCOPE, {
      entries: [
        { text: 'ACME-7 broke payments-api on db-01.' },
        { text: 'Ask @dana about ACME-7.' },
        { text: 'We moved to Postgres with Kafka.' },
        { text: 'nothing to see here' },
      ],
    });
    await service.revise(SCOPE, { entryId: entries[1]!.entryId, text: 'Ask @erin about ACME-8.' });
    await service.forget(SCOPE, { entryId: entries[2]!.entryId });
    const written = await entityRows(db);
    // Version 1 of entry 1 and the active version of entry 2 keep theirs; the forget version has none.
    expect(written.filter((row) => row.includes(' @dana '))).toHaveLength(1);
    expect(written.filter((row) => row.includes(' kafka '))).toHaveLength(1);

    // Back to schema 0010: the later migrations' columns, tables and records go too (kysely applies in
    // name order only).
    await undoScopeKeys(db);
    await undoEntryFields(db);
    await sql`DROP TABLE pc_entities, pc_deleted_scopes`.execute(db);
    await sql`DELETE FROM kysely_migration WHERE name >= '0011'`.execute(db);
    const outcome = await migrateToLatest(db, 'english');
    expect(outcome.applied.slice(0, 3)).toEqual([
      '0011_entities',
      '0012_entry_fields',
      '0013_deleted_scopes',
    ]);
    expect(await entityRows(db)).toEqual(written);

    const head = (await store.head(SCOPE))!;
    const acme = await store.entitySearch({
      scopeId: SCOPE,
      revision: head.revision,
      entities: ['acme-7'],
      limit: 5,
    });
    expect(acme.candidates.map((candidate) => candidate.entryId)).toEqual([entries[0]!.entryId]);
    const before = await store.entitySearch({ scopeId: SCOPE, revision: 1, entities: ['acme-7'], limit: 5 });
    expect(before.candidates).toHaveLength(2);
  } finally {
    await backend.close();
  }
}

describe('migration 0011 (entity index) on data written before it', { timeout: 120_000 }, () => {
  it('PGlite: the backfill indexes what the write path would have', async () => {
    await expectBackfillEqualsWritePath(openMigratedPGlite);
  });

  it('PostgreSQL: the backfill indexes what the write path would have', async () => {
    await expectBackfillEqualsWritePath(openMigratedPostgres);
  });
});
