import { Kysely, PostgresDialect } from 'kysely';
import {
  assertCitus,
  type Distribution,
  type DistributionOutcome,
  distributeOnCitus,
} from './citus-distribution.js';
import type { Database } from './database.js';
import { DEFAULT_DATABASE_BOUNDS } from './database-bounds.js';
import { indexBuildSessions, NO_INDEX_BUILDS } from './index-build-sessions.js';
import type { LexicalIndexCacheOptions } from './lexical-index-cache.js';
import { type MigrationOutcome, migrateToLatest } from './migrate.js';
import { memoryMigrations } from './migrations/migrations.js';
import { guardedPool, poolConfig } from './pg-pool.js';
import { takeOpenedAhead } from './pglite/open-ahead.js';
import { claimDataDir } from './pglite/open-pglite.js';
import { createPGliteDialect } from './pglite/pglite-driver.js';
import { PGliteThread } from './pglite/pglite-thread.js';
import { seedMigratedCluster } from './pglite/schema-template.js';
import { PostgresMemoryStore } from './postgres-memory-store.js';
import { rememberDatabase } from './rate-limits.js';
import { SET_SESSION_SETTINGS } from './session-settings.js';
import { guardStoreErrors, openFailure } from './store-errors.js';
import type { VectorIndexCacheOptions } from './vector-index-cache.js';

export interface StoreOptions {
  /** PostgreSQL text search configuration used to index and query, default `english`. Fixed per database. */
  textSearchConfig?: string;
  /** Scopes with at most this many vectors are searched exactly, larger ones through HNSW. Default 20,000. */
  exactVectorScanLimit?: number;
  /**
   * The lexical indexes of often-searched scopes kept in memory per (scope, revision); `false` turns it
   * off. Same answers as the lexical statement (RFC 0002, "The lexical index in memory").
   */
  lexicalIndexCache?: LexicalIndexCacheOptions | false;
  /**
   * The sparse vectors of often-searched scopes kept in memory per (scope, profile, revision) to choose
   * which vectors the database scores; `false` turns it off. Same answers as the exact scan (RFC 0002,
   * "The vector index in memory").
   */
  vectorIndexCache?: VectorIndexCacheOptions | false;
}

export interface PGliteStoreOptions extends StoreOptions {
  /** Directory to persist to; omit for an in-memory database (tests). */
  dataDir?: string;
  /**
   * PostgreSQL's shared_buffers for this open (`<n>kB`, `<n>MB` or `<n>GB`, or `fit`: sized to the data
   * directory, 32 to 128 MB), default the cluster's own (128 MB; `fit` in memory). PGlite zeroes the
   * whole pool at every start, so a short-lived process that reads little opens faster with a small one
   * (the `memory` commands use 4MB, `server run` and `mcp` `fit`); the data directory keeps its setting.
   */
  sharedBuffers?: string;
}

export interface PostgresStoreOptions extends StoreOptions {
  connectionString: string;
  /** Pool size, default 10. */
  maxConnections?: number;
  /**
   * Bound on one statement: PostgreSQL's statement_timeout, and on the client a query the database
   * does not answer at all is given up 250 ms later with StoreUnavailableError and its connection
   * dropped. Default 115,000 ms.
   */
  statementTimeoutMs?: number;
  /** PostgreSQL's lock_timeout. Default 115,000 ms. */
  lockTimeoutMs?: number;
  /** Told what the open did to the schema (the migrations this process applied). */
  onMigrated?: (outcome: MigrationOutcome) => void;
  /**
   * How the tables are laid out: `none` (default), or `citus`: on a Citus coordinator, the open makes the
   * scope tables distributed by scope and the global tables reference tables after migrating (idempotent,
   * under the migration lock; RFC 0011, "Sharding with Citus"). On a database without Citus, `citus`
   * fails the open with StoreIncompatibleError.
   */
  distribution?: Distribution;
  /** Told what the open distributed (`distribution: 'citus'`): the tables Citus did not know before. */
  onDistributed?: (outcome: DistributionOutcome) => void;
  /**
   * A read replica: opened without migrating (a standby cannot be written; the primary migrates it
   * through replication). The store must then only be read.
   */
  readOnly?: boolean;
}

/** The pool's state, for metrics: connections open, idle, and callers waiting for one. */
export interface PoolUsage {
  total: number;
  idle: number;
  waiting: number;
}

interface PoolProbe {
  usage(): PoolUsage;
  query<R>(text: string): Promise<R[]>;
}

const pools = new WeakMap<PostgresMemoryStore, PoolProbe>();

/** The pool usage of a store opened by createPostgresMemoryStore; undefined for any other store. */
export function poolUsageOf(store: unknown): PoolUsage | undefined {
  return pools.get(store as PostgresMemoryStore)?.usage();
}

/**
 * How far a streaming replica is behind, in seconds of the primary's time: 0 when it has replayed all
 * it received, else the age of the last transaction it replayed. Throws when the replica does not
 * answer, or when the database is not a standby.
 */
export async function replicaLagSeconds(store: unknown): Promise<number> {
  const probe = pools.get(store as PostgresMemoryStore);
  if (!probe) throw new Error('not a store opened by createPostgresMemoryStore');
  const [row] = await probe.query<{ standby: boolean; lag: number | string | null }>(
    `SELECT pg_is_in_recovery() AS standby,
            CASE WHEN pg_last_wal_receive_lsn() IS NOT DISTINCT FROM pg_last_wal_replay_lsn() THEN 0
                 ELSE EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()) END AS lag`,
  );
  if (!row?.standby) throw new Error('the database is not a standby');
  return Math.max(0, Number(row.lag ?? 0));
}

/** Whether the database answers and holds every migration this version knows (for /readyz). */
export async function schemaState(store: unknown): Promise<{ current: boolean; missing: string[] }> {
  const probe = pools.get(store as PostgresMemoryStore);
  if (!probe) return { current: true, missing: [] };
  const rows = await probe.query<{ name: string }>('SELECT name FROM kysely_migration');
  const applied = new Set(rows.map((row) => row.name));
  const missing = Object.keys(await memoryMigrations.getMigrations()).filter((name) => !applied.has(name));
  return { current: missing.length === 0, missing };
}

/**
 * The embedded default: PGlite with pgvector, migrated, one process per data directory. PGlite runs
 * on a worker thread, so a costly statement never holds the caller's event loop.
 */
export async function createPGliteMemoryStore(
  options: PGliteStoreOptions = {},
): Promise<PostgresMemoryStore> {
  const textSearchConfig = options.textSearchConfig ?? 'english';
  // An open begun ahead of this one (openPGliteAhead, e.g. by a command once its flags and
  // configuration were checked) holds the directory's lock and has PostgreSQL starting already.
  const ahead = await takeOpenedAhead(options.dataDir, options.sharedBuffers);
  const claimed =
    ahead?.claimed ?? (options.dataDir === undefined ? undefined : claimDataDir(options.dataDir));
  const release = () => claimed?.release();
  let pglite: PGliteThread;
  try {
    if (ahead) pglite = await ahead.pending.opened;
    else {
      if (claimed) await seedMigratedCluster(claimed.pgliteDir, textSearchConfig, migrateAndClose);
      pglite = await PGliteThread.open(
        claimed?.pgliteDir,
        options.sharedBuffers === undefined ? {} : { sharedBuffers: options.sharedBuffers },
      );
    }
  } catch (error) {
    release();
    throw error;
  }
  try {
    const db = await migratedDatabase(pglite, textSearchConfig);
    return new PostgresMemoryStore({ db, textSearchConfig, onClose: release, ...storeTuning(options) });
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
  // The session's settings (SESSION_SETTINGS) are PGlite's start parameters: no statement here.
  const db = new Kysely<Database>({ dialect: createPGliteDialect(pglite) });
  // The data directory's lock makes this process its only opener.
  await migrateToLatest(db, textSearchConfig, { soleOpener: true });
  return db;
}

/** PostgreSQL + pgvector through a `pg` pool; migrates on open. */
export async function createPostgresMemoryStore(options: PostgresStoreOptions): Promise<PostgresMemoryStore> {
  const textSearchConfig = options.textSearchConfig ?? 'english';
  // Loaded on first use, so the embedded store never loads the PostgreSQL client.
  const { default: pg } = await import('pg');
  const pool = new pg.Pool(
    poolConfig(options.connectionString, options.maxConnections ?? 10, {
      statementTimeoutMs: options.statementTimeoutMs ?? DEFAULT_DATABASE_BOUNDS.statementTimeoutMs,
      lockTimeoutMs: options.lockTimeoutMs ?? DEFAULT_DATABASE_BOUNDS.lockTimeoutMs,
    }),
  );
  pool.on('connect', (client) => {
    // A client that loses its connection while checked out (mid-query) also emits 'error'; the query
    // itself fails with the error, so this listener only keeps the event from crashing the process.
    client.on('error', () => {});
    client.query(SET_SESSION_SETTINGS).catch(() => {});
  });
  // An idle client losing its connection must not crash the process; the next query reports it.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: guardedPool(pool) }) });
  try {
    if (!options.readOnly) {
      if (options.distribution === 'citus') await guardStoreErrors(() => assertCitus(db));
      const outcome = await guardStoreErrors(() => migrateToLatest(db, textSearchConfig));
      options.onMigrated?.(outcome);
      if (options.distribution === 'citus') {
        // Not inside the optional call: `f?.(await g())` never calls g when f is undefined.
        const distributed = await guardStoreErrors(() => distributeOnCitus(db));
        options.onDistributed?.(distributed);
      }
    }
    const store = new PostgresMemoryStore({
      db,
      textSearchConfig,
      ...storeTuning(options),
      ...(options.distribution === undefined ? {} : { distribution: options.distribution }),
      // A read-only store builds no index: its large scopes are scanned exactly until a writer builds theirs.
      indexBuilds: options.readOnly ? NO_INDEX_BUILDS : indexBuildSessions(pg, options.connectionString),
    });
    rememberDatabase(store, db);
    pools.set(store, {
      usage: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
      query: async <R>(text: string) => (await pool.query(text)).rows as R[],
    });
    return store;
  } catch (error) {
    await db.destroy().catch(() => {});
    throw openFailure(error, options.connectionString);
  }
}

function storeTuning(options: StoreOptions) {
  return {
    ...(options.exactVectorScanLimit === undefined
      ? {}
      : { exactVectorScanLimit: options.exactVectorScanLimit }),
    ...(options.lexicalIndexCache === undefined ? {} : { lexicalIndexCache: options.lexicalIndexCache }),
    ...(options.vectorIndexCache === undefined ? {} : { vectorIndexCache: options.vectorIndexCache }),
  };
}
