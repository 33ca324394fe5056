/**
 * `@powercontext/store-postgres/prestart`: starts the embedded store's PGlite thread ahead of the open,
 * without loading the rest of the store (kysely, memory-core). See `prestartPGliteThread`.
 */
export { prestartPGliteThread } from './pglite/pglite-thread.js';
