import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from '../database.js';
import { migrateToLatest } from '../migrate.js';
import { openPGlite } from '../pglite/open-pglite.js';
import { createPGliteDialect } from '../pglite/pglite-driver.js';
import { createTestDatabase } from './test-database.js';

/** A database at the latest schema, for tests that run one suite on both backends. */
export interface MigratedBackend {
  db: Kysely<Database>;
  close(): Promise<void>;
}

/** A throw-away PostgreSQL database (three pooled connections), migrated; `close` drops it. */
export async function openMigratedPostgres(): Promise<MigratedBackend> {
  const database = await createTestDatabase();
  const pool = new pg.Pool({ connectionString: database.connectionString, max: 3 });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  await migrateToLatest(db, 'english');
  return {
    db,
    close: async () => {
      await db.destroy().catch(() => {});
      await database.drop();
    },
  };
}

/** An in-memory PGlite, migrated; `close` releases it. */
export async function openMigratedPGlite(): Promise<MigratedBackend> {
  const { pglite, release } = await openPGlite(undefined);
  const db = new Kysely<Database>({ dialect: createPGliteDialect(pglite) });
  await migrateToLatest(db, 'english');
  return {
    db,
    close: async () => {
      await db.destroy().catch(() => {});
      await release();
    },
  };
}
