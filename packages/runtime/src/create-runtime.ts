import type * as StorePostgres from '@powercontext/store-postgres';
import {
  closeOpenedAhead,
  openedAheadFor,
  openPGliteAhead,
  prestartPGliteThread,
} from '@powercontext/store-postgres/prestart';
import { authorityFromOption } from './authority-config.js';
import { loadRuntimeConfig, opensStoreFirst } from './runtime-config.js';
import type { CreateRuntimeOptions, Runtime } from './runtime-types.js';

export type { CreateRuntimeOptions, Runtime, RuntimeCapabilities, RuntimeStatus } from './runtime-types.js';

/**
 * The composition root: parses configuration, opens the store, and wires adapters into the memory
 * service through a child tsyringe container (factories with explicit tokens, no decorators).
 *
 * For the embedded store, the thread that runs PGlite starts as soon as the configuration is known to
 * be valid, before anything else loads: importing `@powercontext/runtime` loads the configuration and
 * the errors, not the composition (compose-runtime.ts: tsyringe, the adapters), the store adapters
 * (kysely) or the model adapters, which load here beside the thread's start (rfcs/0001, "A library
 * starts as the command does").
 */
export async function createRuntime(options: CreateRuntimeOptions = {}): Promise<Runtime> {
  const config = options.config ?? loadRuntimeConfig(options.env ?? process.env);
  // A bad `authority` option is refused before anything starts.
  const authority = options.authority === undefined ? undefined : authorityFromOption(options.authority);
  const pgliteSharedBuffers = options.pgliteSharedBuffers ?? DEFAULT_SHARED_BUFFERS;
  // The thread starts loading and compiling PGlite now. When nothing is left to refuse before the store
  // opens (no model, no reranker, no write gate: the options an application injects refuse nothing),
  // an existing data directory also begins opening on it now, as the command line's open ahead does,
  // so that PostgreSQL starts while the composition and the store adapters load. A command that has
  // begun opening this data directory ahead (openEmbeddedStoreAhead) has its thread already.
  const dataDir = !options.store && config.store.kind === 'pglite' ? config.store.dataDir : undefined;
  let openedAhead: Promise<boolean> | undefined;
  if (dataDir !== undefined && !openedAheadFor(dataDir, pgliteSharedBuffers)) {
    prestartPGliteThread();
    if (opensStoreFirst(config))
      openedAhead = openPGliteAhead(dataDir, { sharedBuffers: pgliteSharedBuffers });
  }
  loadedStores ??= import('@powercontext/store-postgres');
  const stores = loadedStores;
  stores.catch(() => {}); // awaited by the composition
  // The decision, rerank and AI SDK adapters only when the configuration needs them.
  const models = opensStoreFirst(config)
    ? undefined
    : import('./model-adapters.js').then(({ loadModelAdapters }) => loadModelAdapters(config));
  models?.catch(() => {}); // awaited by the composition
  try {
    const { composeRuntime } = await import('./compose-runtime.js');
    return await composeRuntime(options, {
      config,
      authority,
      stores,
      models,
      pgliteSharedBuffers,
      ...(openedAhead !== undefined ? { openedAhead } : {}),
    });
  } catch (error) {
    // An open begun here that the store never took is closed, and the directory's lock released.
    if (dataDir !== undefined && (await openedAhead?.catch(() => false))) await closeOpenedAhead(dataDir);
    throw error;
  }
}

/** The store adapters, loaded by the first createRuntime (beside the embedded store's thread start). */
let loadedStores: Promise<typeof StorePostgres> | undefined;

/**
 * The embedded store's buffer pool when the application names none: sized to the data directory, as
 * the server's long-lived processes have it (`fit`, 32 to 128 MB), since PGlite zeroes the whole pool
 * at every start (rfcs/0001, "A library starts as the command does").
 */
const DEFAULT_SHARED_BUFFERS = 'fit';
