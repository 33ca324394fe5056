import { MemoryService, type SearchResult } from '@powercontext/memory-core';
import { createFakeEmbedder } from '@powercontext/memory-core/testing';
import { createRrfRetrievalPolicy } from '@powercontext/retrieval-rrf';
import { type Kysely, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { SCOPE_TABLES } from './citus-distribution.js';
import type { Database } from './database.js';
import { migrateToLatest } from './migrate.js';
import { PostgresMemoryStore } from './postgres-memory-store.js';
import {
  type MigratedBackend,
  openMigratedPGlite,
  openMigratedPostgres,
} from './testing-support/migrated-backends.js';
import { undoScopeKeys } from './testing-support/scope-keys-stand-in.js';

/**
 * The keys of the scope tables that do not include `scope_id`: unique and primary keys (and unique
 * indexes) without it, and foreign keys between scope tables whose columns on either side lack it (a
 * foreign key to a global table, such as a vector's profile, names no scope).
 * A table distributed by scope can hold none of them (RFC 0011, "Sharding with Citus").
 */
async function unscopedKeys(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    SELECT c.conrelid::regclass::text || ' ' || c.conname AS name FROM pg_constraint c
    WHERE c.conrelid::regclass::text = ANY(${[...SCOPE_TABLES]}::text[]) AND c.contype IN ('p', 'u', 'f')
      AND (c.contype <> 'f' OR c.confrelid::regclass::text = ANY(${[...SCOPE_TABLES]}::text[]))
      AND (NOT EXISTS (
          SELECT 1 FROM unnest(c.conkey) k JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k
          WHERE a.attname = 'scope_id')
        OR (c.contype = 'f' AND NOT EXISTS (
          SELECT 1 FROM unnest(c.confkey) k JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k
          WHERE a.attname = 'scope_id')))
    UNION ALL
    SELECT i.indrelid::regclass::text || ' ' || i.indexrelid::regclass::text FROM pg_index i
    WHERE i.indrelid::regclass::text = ANY(${[...SCOPE_TABLES]}::text[]) AND i.indisunique AND NOT EXISTS (
      SELECT 1 FROM unnest(i.indkey) k JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k
      WHERE a.attname = 'scope_id')
    ORDER BY 1`.execute(db);
  return rows.map((row) => row.name);
}

const hitsOf = (result: SearchResult) => result.hits.map((hit) => [hit.citation.entryVersionId, hit.score]);
const OTHER = { text: 'The ledger of another team closes weekly.' };
const BM25 = { k1: 1.2, b: 0.75, delta: 0 };

/** What a scope answers: the lexical channel at each of its revisions, and a hybrid search at the head. */
async function answers(store: PostgresMemoryStore, service: MemoryService, queries: readonly string[]) {
  const found: unknown[] = [];
  const head = (await store.head('ledger'))!.revision;
  for (let revision = 1; revision <= head; revision++) {
    for (const query of queries) {
      const { candidates } = await store.lexicalSearch({
        scopeId: 'ledger',
        revision,
        query,
        limit: 10,
        bm25: BM25,
      });
      found.push(candidates.map((c) => [c.entryVersionId, c.score]));
    }
  }
  for (const query of queries) found.push(hitsOf(await service.search('ledger', { query, mode: 'hybrid' })));
  return found;
}

/**
 * Migration 0015 makes every key of a scope's rows lead with the scope. The test writes two scopes at
 * today's schema (remember, revise, purge, vectors, entities, an idempotency key), takes the database
 * back to schema 0014 (the old keys, indexes and foreign keys, `pc_revisions` without its scope), and
 * migrates again: every revision gets its scope back, no key of a scope table lacks the scope, searches
 * at every revision answer as before, and writes, purges and deletes go on.
 */
async function expectScopeKeys(open: () => Promise<MigratedBackend>) {
  const backend = await open();
  try {
    const { db } = backend;
    const store = new PostgresMemoryStore({ db, textSearchConfig: 'english' });
    const embedder = createFakeEmbedder();
    await store.prepareEmbeddingProfile(embedder.profile);
    const service = new MemoryService({ store, embedder, retrievalPolicy: createRrfRetrievalPolicy() });
    expect(await unscopedKeys(db)).toEqual([]);

    const written = await service.remember(
      'ledger',
      {
        entries: [
          { text: 'The ledger closes monthly with @dana.', position: { sourceId: 'call', order: 0 } },
          { text: 'Invoices for ACME-7 go out on Fridays.', position: { sourceId: 'call', order: 1 } },
          { text: 'The secret vault code is 4417.', position: { sourceId: 'call', order: 2 } },
        ],
      },
      { idempotencyKey: 'first' },
    );
    const [closes, , secret] = written.entries.map((entry) => entry.entryId);
    await service.revise('ledger', { entryId: closes!, text: 'The ledger closes every month with @dana.' });
    await service.purge('ledger', { entryId: secret! });
    const other = await service.remember('other', { entries: [OTHER] }, { idempotencyKey: 'other-first' });
    const queries = ['ledger closes', 'invoices fridays', 'vault code'];
    const before = await answers(store, service, queries);

    await undoScopeKeys(db);
    expect(await unscopedKeys(db)).not.toEqual([]);
    const outcome = await migrateToLatest(db, 'english');
    expect(outcome.applied).toEqual(['0015_scope_keys']);

    expect(await unscopedKeys(db)).toEqual([]);
    const { rows: revisions } = await sql<{ scope_id: string; n: number }>`
      SELECT scope_id, count(*)::int AS n FROM pc_revisions GROUP BY scope_id ORDER BY scope_id`.execute(db);
    expect(revisions).toEqual([
      { scope_id: 'ledger', n: 3 },
      { scope_id: 'other', n: 1 },
    ]);
    const after = await answers(store, service, queries);
    expect(after).toEqual(before);
    expect(after.flat().length).toBeGreaterThan(10);

    // Writes go on at the new keys: a replayed idempotency key answers as before, a new entry is found, an entry is
    // purged from every table, and a whole scope is deleted.
    const replayed = await service.remember('other', { entries: [OTHER] }, { idempotencyKey: 'other-first' });
    expect(replayed).toEqual({ ...other, replayed: true });
    const added = await service.remember('ledger', { entries: [{ text: 'Payroll runs on the 25th.' }] });
    const payroll = await service.search('ledger', { query: 'payroll', mode: 'fts' });
    expect(payroll.hits.map((hit) => hit.citation.entryId)).toEqual([added.entries[0]!.entryId]);
    await service.purge('ledger', { entryId: closes! });
    const { rows: left } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM pc_entry_versions WHERE scope_id = 'ledger' AND entry_id = ${closes!}::uuid`.execute(
      db,
    );
    expect(left[0]?.n).toBe(0);
    expect((await service.search('ledger', { query: 'ledger closes', mode: 'fts' })).hits).toEqual([]);
    expect((await store.deleteScope('other', null))?.status).toBe('deleted');
    const { rows: otherRevisions } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM pc_revisions WHERE scope_id = 'other'`.execute(db);
    expect(otherRevisions[0]?.n).toBe(0);
  } finally {
    await backend.close();
  }
}

describe('migration 0015 (scope keys) on data written before it', { timeout: 120_000 }, () => {
  it('PGlite: every key leads with the scope, and the scopes answer and write as before', async () => {
    await expectScopeKeys(openMigratedPGlite);
  });

  it('PostgreSQL: every key leads with the scope, and the scopes answer and write as before', async () => {
    await expectScopeKeys(openMigratedPostgres);
  });
});
