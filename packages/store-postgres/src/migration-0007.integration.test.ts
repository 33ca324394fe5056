import { randomUUID } from 'node:crypto';
import { type IdempotencyRecord, MemoryService, PLAIN_LEXICAL_PROJECTION } from '@powercontext/memory-core';
import { createFakeEmbedder, noSearchPolicy } from '@powercontext/memory-core/testing';
import { Kysely, Migrator, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresMemoryStore } from './create-store.js';
import type { Database } from './database.js';
import { memoryMigrations } from './migrations/migrations.js';
import { PostgresMemoryStore } from './postgres-memory-store.js';
import { addEntryFieldsStandIn, dropEntryFieldsStandIn } from './testing-support/entry-fields-stand-in.js';
import { addScopeKeysStandIn, dropScopeKeysStandIn } from './testing-support/scope-keys-stand-in.js';
import { createTestDatabase, type TestDatabase } from './testing-support/test-database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

function openDb() {
  return new Kysely<Database>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.connectionString }) }),
  });
}

// Each test opens PGlite on disk several times: seconds per open on a busy two-core machine.
describe('migration 0007 (idempotency keys)', { timeout: 120_000 }, () => {
  it('adds the table to a database written before it; keyed writes then work on the old scope', async () => {
    const db = openDb();
    try {
      const migrated = await new Migrator({ db, provider: memoryMigrations }).migrateTo(
        '0006_ingest_write_path',
      );
      expect(migrated.error).toBeUndefined();
      await addEntryFieldsStandIn(db);
      await addScopeKeysStandIn(db);
      await sql`INSERT INTO pc_settings (key, value) VALUES ('text_search_config', 'english')`.execute(db);
      // The analysis before migration 0008 folded nothing: `unaccent` stands for the identity until then.
      await sql`CREATE FUNCTION unaccent(text) RETURNS text LANGUAGE sql IMMUTABLE AS 'SELECT $1'`.execute(
        db,
      );
      const before = new PostgresMemoryStore({ db, textSearchConfig: 'english' });
      await before.write('old', 0, (tx) =>
        tx.appendRevision(
          'remember',
          [
            {
              entryId: randomUUID(),
              entryVersionId: randomUUID(),
              version: 1,
              previousVersionId: null,
              kind: 'note',
              text: 'written before migration 0007',
              contentHash: 'hash-old',
              sources: [],
              position: null,
              metadata: {},
              tags: [],
              pinned: false,
              occurredAt: null,
              state: 'active',
            },
          ],
          PLAIN_LEXICAL_PROJECTION,
        ),
      );
      await sql`DROP FUNCTION unaccent(text)`.execute(db);
      await dropEntryFieldsStandIn(db);
      await dropScopeKeysStandIn(db);
    } finally {
      await db.destroy();
    }

    const store = await createPostgresMemoryStore({ connectionString: database.connectionString });
    try {
      const embedder = createFakeEmbedder();
      await store.prepareEmbeddingProfile(embedder.profile);
      const service = new MemoryService({ store, embedder, retrievalPolicy: noSearchPolicy });
      const request = {
        entries: [{ text: 'written after it', metadata: { zeta: 1, alpha: { b: 2, a: 1 } } }],
      };
      const first = await service.remember('old', request, { idempotencyKey: 'after-0007' });
      expect(first.memory.revision).toBe(2);
      const again = await service.remember('old', request, { idempotencyKey: 'after-0007' });
      expect(again).toEqual({ ...first, replayed: true });
    } finally {
      await store.close();
    }
  });

  it('prunes the writing scope’s expired records when a keyed write commits, and keeps live ones', async () => {
    const store = await createPostgresMemoryStore({ connectionString: database.connectionString });
    const db = openDb();
    try {
      const embedder = createFakeEmbedder();
      await store.prepareEmbeddingProfile(embedder.profile);
      const service = new MemoryService({ store, embedder, retrievalPolicy: noSearchPolicy });
      const scopes = [`prune-${randomUUID()}`, `prune-${randomUUID()}`];
      for (const scopeId of scopes) await service.remember(scopeId, { entries: [{ text: 'base' }] });
      const now = Date.now();
      const record = (key: string, createdAt: number, lifetimeMs: number): IdempotencyRecord => ({
        key,
        operation: 'remember',
        requestDigest: 'sha256:test',
        result: '{}',
        createdAt: new Date(createdAt),
        expiresAt: new Date(createdAt + lifetimeMs),
      });
      // Records written an hour ago: two expired (lifetime 1 minute), one still live (lifetime 1 day).
      await store.write(scopes[0]!, 1, async (tx) => {
        await tx.recordIdempotency(record('expired-a', now - 3_600_000, 60_000));
        await tx.recordIdempotency(record('live', now - 3_600_000, 86_400_000));
      });
      await store.write(scopes[1]!, 1, (tx) =>
        tx.recordIdempotency(record('expired-b', now - 3_600_000, 60_000)),
      );
      const keys = async () =>
        (
          await db
            .selectFrom('pc_idempotency_keys')
            .select('idempotency_key')
            .where('scope_id', 'in', scopes)
            .orderBy('idempotency_key')
            .execute()
        ).map((row) => row.idempotency_key);
      expect(await keys()).toEqual(['expired-a', 'expired-b', 'live']);
      // Expired records are invisible before they are pruned.
      expect(await store.idempotencyRecord(scopes[0]!, 'expired-a', new Date(now))).toBeUndefined();
      expect(await store.idempotencyRecord(scopes[0]!, 'live', new Date(now))).toBeDefined();
      // A keyed write in the second scope prunes that scope's expired record, not the first scope's: the
      // prune stays on the writing scope's rows (one shard where the tables are distributed by scope).
      await service.forget(
        scopes[1]!,
        { entryId: (await service.list(scopes[1]!, {})).entries[0]!.entryId },
        { idempotencyKey: 'now' },
      );
      expect(await keys()).toEqual(['expired-a', 'live', 'now']);
      // A keyed write in the first scope prunes its own.
      await service.remember(scopes[0]!, { entries: [{ text: 'later' }] }, { idempotencyKey: 'later' });
      expect(await keys()).toEqual(['later', 'live', 'now']);
    } finally {
      await db.destroy();
      await store.close();
    }
  });
});
