import { Kysely, PostgresDialect } from 'kysely';
import type { Database } from './database.js';
import { migrateToLatest } from './migrate.js';
import { claimDataDir } from './pglite/open-pglite.js';
import { createPGliteDialect } from './pglite/pglite-driver.js';
import { PGliteThread } from './pglite/pglite-thread.js';
import { seedMigratedCluster } from './pglite/schema-template.js';
import { PostgresMemoryStore } from './postgres-memory-store.js';
import { guardStoreErrors, openFailure } from './store-errors.js';

export interface StoreOptions {
  /** PostgreSQL text search configuration used to index and query, default `english`. Fixed per database. */
  textSearchConfig?: string;
  /** Scopes with at most this many vectors are searched exactly, larger ones through HNSW. Default 20,000. */
  exactVectorScanLimit?: number;
}

export interface PGliteStoreOptions extends StoreOptions {
  /** Directory to persist to; omit for an in-memory database (tests). */
  dataDir?: string;
}

export interface PostgresStoreOptions extends StoreOptions {
  connectionString: string;
  /** Pool size, default 10. */
  maxConnections?: number;
}

const ITERATIVE_SCAN = 'SET hnsw.iterative_scan = strict_order';

/**
 * The embedded default: PGlite with pgvector, migrated, one process per data directory. PGlite runs
 * on a worker thread, so a costly statement never holds the caller's event loop.
 */
export async function createPGliteMemoryStore(
  options: PGliteStoreOptions = {},
): Promise<PostgresMemoryStore> {
  const textSearchConfig = options.textSearchConfig ?? 'english';
  const claimed = options.dataDir === undefined ? undefined : claimDataDir(options.dataDir);
  const release = () => claimed?.release();
  let pglite: PGliteThread;
  try {
    if (claimed) await seedMigratedCluster(claimed.pgliteDir, textSearchConfig, migrateAndClose);
    pglite = await PGliteThread.open(claimed?.pgliteDir);
  } catch (error) {
    release();
    throw error;
  }
  try {
    const db = await migratedDatabase(pglite, textSearchConfig);
    return new PostgresMemoryStore({ db, textSearchConfig, onClose: release, ...exactLimit(options) });
  } catch (error) {
    await pglite.close().catch(() => {});
    release();
    throw error;
  }

  async function migrateAndClose(dir: string): Promise<void> {
    const fresh = await PGliteThread.open(dir);
    try {
      await migratedDatabase(fresh, textSearchConfig);
    } finally {
      await fresh.close();
    }
  }
}

async function migratedDatabase(pglite: PGliteThread, textSearchConfig: string): Promise<Kysely<Database>> {
  await pglite.exec(ITERATIVE_SCAN);
  const db = new Kysely<Database>({ dialect: createPGliteDialect(pglite) });
  await migrateToLatest(db, textSearchConfig);
  return db;
}

/** PostgreSQL + pgvector through a `pg` pool; migrates on open. */
export async function createPostgresMemoryStore(options: PostgresStoreOptions): Promise<PostgresMemoryStore> {
  const textSearchConfig = options.textSearchConfig ?? 'english';
  // Loaded on first use, so the embedded store never loads the PostgreSQL client.
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: 5_000,
  });
  pool.on('connect', (client) => {
    // A client that loses its connection while checked out (mid-query) also emits 'error'; the query
    // itself fails with the error, so this listener only keeps the event from crashing the process.
    client.on('error', () => {});
    client.query(ITERATIVE_SCAN).catch(() => {});
  });
  // An idle client losing its connection must not crash the process; the next query reports it.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  try {
    await guardStoreErrors(() => migrateToLatest(db, textSearchConfig));
    return new PostgresMemoryStore({ db, textSearchConfig, ...exactLimit(options) });
  } catch (error) {
    await db.destroy().catch(() => {});
    throw openFailure(error, options.connectionString);
  }
}

function exactLimit(options: StoreOptions) {
  return options.exactVectorScanLimit === undefined
    ? {}
    : { exactVectorScanLimit: options.exactVectorScanLimit };
}
