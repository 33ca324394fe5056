import {
  closeOpenedAhead,
  openPGliteAhead,
  type PrestartOptions,
  prestartPGliteThread,
} from '@powercontext/store-postgres/prestart';
import type { RuntimeConfig } from './runtime-config.js';

type Env = Record<string, string | undefined>;

/**
 * `@powercontext/runtime/prestart`: when `env` selects the embedded store (no
 * POWERCONTEXT_SERVER_DATABASE_URL), starts the thread that will run PGlite and lets it load PGlite
 * now, so that this overlaps loading the runtime's own modules; the next `createRuntime` on the
 * embedded store takes it. It opens nothing and writes nothing (a configuration that fails later leaves
 * no trace, and an unused thread never keeps the process alive). Importing this module does not load
 * the runtime.
 */
export function prestartEmbeddedStore(env: Env = process.env, options: PrestartOptions = {}): void {
  if (env.POWERCONTEXT_SERVER_DATABASE_URL !== undefined) return;
  prestartPGliteThread(options);
}

export type { PrestartOptions };

export interface OpenAheadOptions {
  /**
   * The `pgliteSharedBuffers` the caller will give `createRuntime` (it must be the same to be taken);
   * default `fit`, as `createRuntime`'s.
   */
  pgliteSharedBuffers?: string;
}

/**
 * Begins opening the embedded store's existing data directory now, on the PGlite thread, so that
 * PostgreSQL starts while the caller loads the runtime and the rest of its modules; the next
 * `createRuntime` with the same configuration and `pgliteSharedBuffers` takes the open database (its
 * lock and all). `source` is the configuration, or the environment to read it from.
 *
 * The caller calls it once nothing else can refuse the run before `createRuntime` (its flags, its own
 * settings); this function adds the runtime's: it does nothing, and returns false, unless the
 * configuration is valid, selects the embedded store, and leaves `createRuntime` nothing to refuse
 * before it opens the store (no model, no reranker, no write gate), and unless the directory already
 * holds a store of this PGlite version that no one else has open. In every such case `createRuntime`
 * reports what it always did, and nothing was written. An open that is never taken does not keep the
 * process alive (its lock is released at exit); `closeEmbeddedStoreAhead` closes it cleanly.
 */
export async function openEmbeddedStoreAhead(
  source: { env: Env } | { config: RuntimeConfig },
  options: OpenAheadOptions = {},
): Promise<boolean> {
  if ('env' in source && source.env.POWERCONTEXT_SERVER_DATABASE_URL !== undefined) return false;
  // Loaded here (zod): the bare prestart above stays light.
  const { loadRuntimeConfig, opensStoreFirst } = await import('./runtime-config.js');
  let config: RuntimeConfig;
  try {
    config = 'config' in source ? source.config : loadRuntimeConfig(source.env);
  } catch {
    return false; // createRuntime reports it, before any store opens
  }
  if (config.store.kind !== 'pglite' || !opensStoreFirst(config)) return false;
  return openPGliteAhead(config.store.dataDir, { sharedBuffers: options.pgliteSharedBuffers ?? 'fit' });
}

/** Closes cleanly an open begun by `openEmbeddedStoreAhead` that no runtime took (a command that stops early). */
export function closeEmbeddedStoreAhead(): Promise<void> {
  return closeOpenedAhead();
}
