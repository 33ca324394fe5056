export {
  CitusMissingError,
  citusLayout,
  type Distribution,
  type DistributionOutcome,
  distributeOnCitus,
  REFERENCE_TABLES,
  SCOPE_TABLES,
} from './citus-distribution.js';
export {
  createPGliteMemoryStore,
  createPostgresMemoryStore,
  type PGliteStoreOptions,
  type PoolUsage,
  type PostgresStoreOptions,
  poolUsageOf,
  replicaLagSeconds,
  type StoreOptions,
  schemaState,
} from './create-store.js';
export type { Database } from './database.js';
export { type DatabaseBounds, DEFAULT_DATABASE_BOUNDS } from './database-bounds.js';
export { LexicalIndexCache, type LexicalIndexCacheOptions } from './lexical-index-cache.js';
export {
  MIGRATION_LOCK_KEY,
  type MigrateOptions,
  type MigrationOutcome,
  migrateToLatest,
} from './migrate.js';
export {
  closeOpenedAhead,
  type OpenAheadOptions,
  openedAheadFor,
  openPGliteAhead,
} from './pglite/open-ahead.js';
export { installedPGliteVersion } from './pglite/open-pglite.js';
export { createPGliteDialect } from './pglite/pglite-driver.js';
export {
  type PGliteHandle,
  type PGliteOpenOptions,
  type PGliteSession,
  PGliteThread,
  prestartPGliteThread,
} from './pglite/pglite-thread.js';
export {
  type IndexCacheCounts,
  type IndexCounts,
  PostgresMemoryStore,
  type PostgresMemoryStoreOptions,
} from './postgres-memory-store.js';
export {
  PostgresRateLimits,
  postgresRateLimitsOf,
  type SharedRateDecision,
} from './rate-limits.js';
export {
  assertRevisionVisible,
  type ReadOutcome,
  type ReadTarget,
  type ReadTargetScope,
  type ReplicaMember,
  ReplicatedStore,
  type ReplicatedStoreOptions,
} from './replicated-store.js';
export { describeConnectionTarget, isUnavailable } from './store-errors.js';
export { VectorIndexCache, type VectorIndexCacheOptions } from './vector-index-cache.js';
