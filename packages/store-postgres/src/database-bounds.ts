// Apart from pg-pool.ts, which needs pg's types: these are public, and a user of the package need not
// install @types/pg to compile against them.

/** How the store bounds its time at the database (RFC 0005, "A database that hangs"). */
export interface DatabaseBounds {
  /** PostgreSQL's statement_timeout, and the client-side bound on one query (plus `CLIENT_MARGIN_MS`). */
  statementTimeoutMs: number;
  /** PostgreSQL's lock_timeout: how long a statement waits for a row or table lock. */
  lockTimeoutMs: number;
}

/** Defaults a few seconds under the server's default 120 s request timeout. */
export const DEFAULT_DATABASE_BOUNDS: DatabaseBounds = {
  statementTimeoutMs: 115_000,
  lockTimeoutMs: 115_000,
};
