import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { type Distribution, distributeOnCitus } from '../citus-distribution.js';
import type { Database } from '../database.js';
import { migrateToLatest } from '../migrate.js';
import { openPGlite } from '../pglite/open-pglite.js';
import { createPGliteDialect } from '../pglite/pglite-driver.js';
import { CITUS_URL, createCitusSchema } from './citus-database.js';
import { createTestDatabase } from './test-database.js';

/** A database at the latest schema, for tests that run one suite on both backends. */
export interface MigratedBackend {
  db: Kysely<Database>;
  /** How the tables are laid out, for the stores a test opens over `db` (Citus: `citus`). */
  distribution?: Distribution;
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

/**
 * A throw-away schema on the Citus coordinator of POWERCONTEXT_TEST_CITUS_URL, migrated and distributed
 * by scope; `close` drops it. Undefined without that variable (the caller skips, and says so).
 */
export const openMigratedCitus: (() => Promise<MigratedBackend>) | undefined =
  CITUS_URL === undefined
    ? undefined
    : async () => {
        const schema = await createCitusSchema(CITUS_URL!);
        const pool = new pg.Pool({ connectionString: schema.connectionString, max: 3 });
        const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
        await migrateToLatest(db, 'english');
        await distributeOnCitus(db);
        return {
          db,
          distribution: 'citus',
          close: async () => {
            await db.destroy().catch(() => {});
            await schema.drop();
          },
        };
      };
