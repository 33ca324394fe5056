import { CpuSlice } from '@powercontext/memory-core';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
} from 'kysely';
import { type HeldTransaction, holdTransaction } from './held-transaction.js';
import type { PGliteHandle, PGliteSession } from './pglite-thread.js';

/**
 * A kysely driver for PGlite's single connection. Transactions run inside `pglite.transaction()`, never
 * as raw BEGIN/COMMIT, and the connection is handed out one caller at a time, so a query from another
 * caller can never land inside someone else's open transaction.
 */
class PGliteDriver implements Driver {
  readonly #pglite: PGliteHandle;
  #tail: Promise<void> = Promise.resolve();
  readonly #releases = new WeakMap<PGliteConnection, () => void>();
  /**
   * PGlite opened on this thread (`openPGlite`, not the store's PGliteThread) runs each statement
   * synchronously: a costly one holds the event loop for its whole length, and statements queued by
   * concurrent requests would otherwise run back to back in one go. Statements take turns with the
   * process's other CPU work instead (see nextTurn).
   */
  readonly #slice = new CpuSlice();

  constructor(pglite: PGliteHandle) {
    this.#pglite = pglite;
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.#tail;
    let release!: () => void;
    this.#tail = new Promise((resolve) => {
      release = resolve;
    });
    await previous;
    const connection = new PGliteConnection(this.#pglite, this.#slice);
    this.#releases.set(connection, release);
    return connection;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PGliteConnection).begin();
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PGliteConnection).finish(true);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PGliteConnection).finish(false);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    this.#releases.get(connection as PGliteConnection)?.();
  }

  async destroy(): Promise<void> {
    await this.#tail;
    if (!this.#pglite.closed) await this.#pglite.close();
  }
}

class PGliteConnection implements DatabaseConnection {
  readonly #pglite: PGliteHandle;
  readonly #slice: CpuSlice;
  #held?: HeldTransaction<PGliteSession>;

  constructor(pglite: PGliteHandle, slice: CpuSlice) {
    this.#pglite = pglite;
    this.#slice = slice;
  }

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    if (this.#slice.spent) await this.#slice.yield();
    const target = this.#held?.transaction ?? this.#pglite;
    const result = await target.query<R>(compiledQuery.sql, [...compiledQuery.parameters]);
    return {
      rows: result.rows,
      ...(result.affectedRows === undefined ? {} : { numAffectedRows: BigInt(result.affectedRows) }),
    };
  }

  // biome-ignore lint/correctness/useYield: streaming is not offered by this driver.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('PGlite driver does not support streaming queries');
  }

  async begin(): Promise<void> {
    this.#held = await holdTransaction<PGliteSession>((callback) => this.#pglite.transaction(callback));
  }

  async finish(commit: boolean): Promise<void> {
    const held = this.#held;
    try {
      await held?.finish(commit);
    } finally {
      this.#held = undefined;
    }
  }
}

/** A kysely dialect over an open PGlite instance, on this thread (PGlite) or a worker (PGliteThread). */
export function createPGliteDialect(pglite: PGliteHandle): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new PGliteDriver(pglite),
    createIntrospector: (db: Kysely<unknown>) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  };
}
