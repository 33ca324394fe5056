import { prestartPGliteThread } from '@powercontext/store-postgres/prestart';

/**
 * `@powercontext/runtime/prestart`: when `env` selects the embedded store (no
 * POWERCONTEXT_SERVER_DATABASE_URL), starts the thread that will run PGlite and lets it load PGlite
 * now, so that this overlaps loading the runtime's own modules; the next `createRuntime` on the
 * embedded store takes it. It opens nothing and writes nothing (a configuration that fails later leaves
 * no trace, and an unused thread never keeps the process alive). Importing this module does not load
 * the runtime.
 */
export function prestartEmbeddedStore(env: Record<string, string | undefined> = process.env): void {
  if (env.POWERCONTEXT_SERVER_DATABASE_URL !== undefined) return;
  prestartPGliteThread();
}
