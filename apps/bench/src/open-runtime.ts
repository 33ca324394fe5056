import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createRuntime, type Runtime } from '@powercontext/runtime';
import type { Backend, BenchArgs } from './args.js';

export interface OpenedRuntime {
  runtime: Runtime;
  cleanup(): Promise<void>;
}

/** A fresh runtime on the backend: PGlite in a new temporary data dir, or the given PostgreSQL database. */
export async function openRuntime(backend: Backend, args: BenchArgs): Promise<OpenedRuntime> {
  if (backend === 'postgres') {
    const runtime = await createRuntime({ env: { POWERCONTEXT_SERVER_DATABASE_URL: args.databaseUrl } });
    return { runtime, cleanup: () => runtime.close() };
  }
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pc-bench-pglite-'));
  const removeDir = () => rm(dataDir, { recursive: true, force: true });
  try {
    const runtime = await createRuntime({ env: { POWERCONTEXT_SERVER_DATA_DIR: dataDir } });
    return { runtime, cleanup: () => runtime.close().finally(removeDir) };
  } catch (error) {
    await removeDir();
    throw error;
  }
}

/** An error with its causes (pg reports an unreachable server as an AggregateError of attempts). */
export function describeError(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) {
    return `${error.message || error.name}: ${error.errors.map(describeError).join('; ')}`;
  }
  if (error instanceof Error) {
    const cause = error.cause === undefined ? '' : ` (cause: ${describeError(error.cause)})`;
    return `${error.name}: ${error.message || '(no message)'}${cause}`;
  }
  return String(error);
}
