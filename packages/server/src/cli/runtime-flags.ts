import type { Runtime } from '@powercontext/runtime';

/** Flags that override the store settings of the environment (the names `server run` also accepts). */
export const STORE_FLAGS = {
  '--database-url': 'POWERCONTEXT_SERVER_DATABASE_URL',
  '--data-dir': 'POWERCONTEXT_SERVER_DATA_DIR',
} as const;

export type StoreFlag = keyof typeof STORE_FLAGS;

export const STORE_FLAGS_USAGE = `  --database-url URL    PostgreSQL with pgvector (default: POWERCONTEXT_SERVER_DATABASE_URL; unset = embedded store)
  --data-dir DIR        embedded PGlite store (default: POWERCONTEXT_SERVER_DATA_DIR, else ./.powercontext/data)`;

export function isStoreFlag(flag: string): flag is StoreFlag {
  return Object.hasOwn(STORE_FLAGS, flag);
}

export type StoreOverrides = Partial<Record<StoreFlag, string>>;

type Env = Record<string, string | undefined>;

/** The environment with the store flags applied. */
function storeEnv(overrides: StoreOverrides, env: Env): Env {
  const merged: Env = { ...env };
  for (const [flag, value] of Object.entries(overrides) as [StoreFlag, string][])
    merged[STORE_FLAGS[flag]] = value;
  // A --data-dir given on the command line means the embedded store, whatever the environment says.
  if (overrides['--data-dir'] !== undefined && overrides['--database-url'] === undefined) {
    delete merged.POWERCONTEXT_SERVER_DATABASE_URL;
  }
  return merged;
}

/**
 * Once the arguments are known to be valid: when they and the environment select the embedded store,
 * its PGlite thread starts loading now, while the command loads the rest of its modules, and, when the
 * configuration is valid and the data directory an existing store, PostgreSQL starts opening it there;
 * `openRuntime` with the same `pgliteSharedBuffers` then takes the open database (rfcs/0001, "Start-up").
 * A configuration that fails opens nothing: `openRuntime` reports it as before.
 */
export async function prestartStore(
  overrides: StoreOverrides,
  env: Env = process.env,
  options: { pgliteSharedBuffers?: string } = {},
): Promise<void> {
  const prestart = await import('@powercontext/runtime/prestart');
  const merged = storeEnv(overrides, env);
  prestart.prestartEmbeddedStore(merged);
  await prestart.openEmbeddedStoreAhead({ env: merged }, options);
}

/**
 * Opens the runtime from the environment with the store flags applied. Start-up failures (invalid
 * configuration, a database that cannot be reached, a data directory held by another process) come
 * back as one line naming the setting, or the flag that set it, and the rule.
 */
export async function openRuntime(
  overrides: StoreOverrides,
  env: Env = process.env,
  options: { pgliteSharedBuffers?: string } = {},
): Promise<{ runtime: Runtime } | { failure: string }> {
  try {
    // Loaded here, not at the top: a command checks its arguments before the runtime's module graph loads.
    const { createRuntime } = await import('@powercontext/runtime');
    return { runtime: await createRuntime({ env: storeEnv(overrides, env), ...options }) };
  } catch (error) {
    return { failure: describeStartupFailure(error, overrides) };
  }
}

function describeStartupFailure(error: unknown, overrides: StoreOverrides): string {
  if (!(error instanceof Error)) throw error;
  const { code, setting } = error as Error & { code?: unknown; setting?: unknown };
  if (typeof code !== 'string') throw error;
  let message = error.message;
  if (typeof setting === 'string') {
    const flag = (Object.keys(STORE_FLAGS) as StoreFlag[]).find(
      (name) => STORE_FLAGS[name] === setting && overrides[name] !== undefined,
    );
    if (flag) message = message.replace(setting, `${flag} (${setting})`);
  }
  return `${code}: ${message}`;
}
