import { MemoryService } from '@powercontext/memory-core';
import { createFakeEmbedder } from '@powercontext/memory-core/testing';
import { createRrfRetrievalPolicy } from '@powercontext/retrieval-rrf';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrateToLatest } from './migrate.js';
import { PostgresMemoryStore } from './postgres-memory-store.js';
import { undoEntryFields } from './testing-support/entry-fields-stand-in.js';
import {
  type MigratedBackend,
  openMigratedPGlite,
  openMigratedPostgres,
} from './testing-support/migrated-backends.js';
import { undoScopeKeys } from './testing-support/scope-keys-stand-in.js';

const SCOPE = 'before-entry-fields';

/**
 * Migration 0012 adds tags, pinned and occurred_at (RFC 0014). The test writes a scope, takes the
 * database back to schema 0011 (the columns, indexes and migration record gone), migrates again, and
 * expects every version to read with the defaults and to be found by filters on them.
 */
async function expectDefaults(open: () => Promise<MigratedBackend>) {
  const backend = await open();
  try {
    const { db } = backend;
    const store = new PostgresMemoryStore({ db, textSearchConfig: 'english' });
    const embedder = createFakeEmbedder();
    await store.prepareEmbeddingProfile(embedder.profile);
    const service = new MemoryService({ store, embedder, retrievalPolicy: createRrfRetrievalPolicy() });
    const { entries } = await service.remember(SCOPE, {
      entries: [{ text: 'The ledger closes monthly.' }, { text: 'Invoices go out on Fridays.' }],
    });
    await service.revise(SCOPE, { entryId: entries[0]!.entryId, text: 'The ledger closes every month.' });

    // Back to schema 0011: the later migrations' tables and records go too (kysely applies in name order).
    await undoScopeKeys(db);
    await undoEntryFields(db);
    await sql`DROP TABLE pc_deleted_scopes`.execute(db);
    await sql`DELETE FROM kysely_migration WHERE name > '0012'`.execute(db);
    const outcome = await migrateToLatest(db, 'english');
    expect(outcome.applied).toEqual([
      '0012_entry_fields',
      '0013_deleted_scopes',
      '0014_scope_hnsw_indexes',
      '0015_scope_keys',
    ]);

    const old = await service.get(SCOPE, { entryId: entries[0]!.entryId, revision: 1 });
    expect(old.entry).toMatchObject({ version: 1, tags: [], pinned: false, occurredAt: null });
    const page = await service.list(SCOPE, { filter: { pinned: false } });
    expect(page.total).toBe(2);
    expect((await service.list(SCOPE, { filter: { tagsAny: ['x'] } })).total).toBe(0);
    const written = await service.remember(SCOPE, {
      entries: [{ text: 'Audits happen in March.', tags: ['audit'], occurredAt: '2026-03-01T00:00:00Z' }],
    });
    const found = await service.search(SCOPE, {
      query: 'audits',
      mode: 'fts',
      filter: { tagsAll: ['audit'] },
    });
    expect(found.hits.map((hit) => hit.citation.entryId)).toEqual([written.entries[0]!.entryId]);
  } finally {
    await backend.close();
  }
}

describe('migration 0012 (entry fields) on data written before it', { timeout: 120_000 }, () => {
  it('PGlite: existing versions read as no tags, not pinned, no occurred_at', async () => {
    await expectDefaults(openMigratedPGlite);
  });

  it('PostgreSQL: existing versions read as no tags, not pinned, no occurred_at', async () => {
    await expectDefaults(openMigratedPostgres);
  });
});
