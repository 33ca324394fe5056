/**
 * `@powercontext/store-postgres/prestart`: starts the embedded store's PGlite thread ahead of the open
 * (`prestartPGliteThread`), and begins opening an existing data directory on it (`openPGliteAhead`),
 * without loading the rest of the store (kysely; memory-core only once a data directory is given).
 */
export {
  closeOpenedAhead,
  type OpenAheadOptions,
  openedAheadFor,
  openPGliteAhead,
} from './pglite/open-ahead.js';
export { type PrestartOptions, prestartPGliteThread } from './pglite/pglite-thread.js';
