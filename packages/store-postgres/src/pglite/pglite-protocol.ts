/** Messages between a PGliteThread (main side) and its worker (pglite-worker.ts). */

export type PGliteRequest =
  | { id: number; op: 'query'; sql: string; params: unknown[]; inTransaction: boolean }
  | { id: number; op: 'exec'; sql: string }
  | { id: number; op: 'begin' | 'commit' | 'rollback' | 'close' };

export interface PGliteQueryResult<R = unknown> {
  rows: R[];
  affectedRows?: number;
}

export type PGliteResponse =
  | { id: number; ok: true; result?: PGliteQueryResult }
  | { id: number; ok: false; error: SerializedError };

/**
 * The first message a worker gets: which database to open. A worker loads PGlite as soon as it starts,
 * so one started ahead of the open (`prestartPGliteThread`) has that behind it when this arrives.
 */
export interface PGliteOpen {
  op: 'open';
  /** The PostgreSQL folder; undefined for an in-memory database. */
  pgliteDir: string | undefined;
  /** PostgreSQL's shared_buffers for this open (e.g. `32MB`); undefined keeps the cluster's setting. */
  sharedBuffers?: string;
}

/** The worker's first message: PGlite is open, or why it is not. */
export type PGliteReady = { ready: true } | { ready: false; error: SerializedError };

/** An error as it crosses the thread boundary: its name, message and plain fields (SQLSTATE `code`, `detail`...). */
export interface SerializedError {
  name: string;
  message: string;
  fields: Record<string, string | number | boolean>;
}

export function serializeError(error: unknown): SerializedError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), fields: {} };
  const fields: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(error)) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      fields[key] = value;
  }
  return { name: error.name, message: error.message, fields };
}

export function deserializeError(serialized: SerializedError): Error {
  const error = Object.assign(new Error(serialized.message), serialized.fields);
  error.name = serialized.name;
  return error;
}
