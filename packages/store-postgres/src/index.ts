export {
  createPGliteMemoryStore,
  createPostgresMemoryStore,
  type PGliteStoreOptions,
  type PostgresStoreOptions,
  type StoreOptions,
} from './create-store.js';
export type { Database } from './database.js';
export { migrateToLatest } from './migrate.js';
export { installedPGliteVersion } from './pglite/open-pglite.js';
export { createPGliteDialect } from './pglite/pglite-driver.js';
export { type PGliteHandle, type PGliteSession, PGliteThread } from './pglite/pglite-thread.js';
export { PostgresMemoryStore, type PostgresMemoryStoreOptions } from './postgres-memory-store.js';
export { isUnavailable } from './store-errors.js';
