import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  deserializeError,
  type PGliteQueryResult,
  type PGliteReady,
  type PGliteRequest,
  type PGliteResponse,
} from './pglite-protocol.js';

/** What the store's kysely driver uses of PGlite; both PGlite itself and PGliteThread provide it. */
export interface PGliteSession {
  query<R>(sql: string, params?: unknown[]): Promise<PGliteQueryResult<R>>;
}

export interface PGliteHandle extends PGliteSession {
  readonly closed: boolean;
  exec(sql: string): Promise<unknown>;
  transaction<T>(callback: (transaction: PGliteSession) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

type Pending = { resolve: (response: PGliteResponse) => void; reject: (error: Error) => void };

/**
 * PGlite on a worker thread. PGlite runs each SQL statement synchronously on the thread that owns it,
 * so on the main thread a statement over a large scope holds the event loop for its whole length (tens
 * to hundreds of milliseconds), and every other request waits. Here statements run on the worker;
 * the main thread only sends them and receives their rows.
 */
export class PGliteThread implements PGliteHandle {
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #closed = false;
  #exitError: Error | undefined;

  private constructor(worker: Worker) {
    this.#worker = worker;
    worker.on('message', (response: PGliteResponse) => {
      const pending = this.#pending.get(response.id);
      this.#pending.delete(response.id);
      pending?.resolve(response);
    });
    worker.on('error', (error) => this.#fail(error));
    worker.on('exit', (code) => this.#fail(new Error(`the PGlite worker thread exited (code ${code})`)));
  }

  /** Starts the worker and waits until PGlite is open there (pgvector loaded). */
  static async open(pgliteDir: string | undefined): Promise<PGliteThread> {
    const worker = new Worker(workerFile(), { workerData: { pgliteDir } });
    let onMessage!: (ready: PGliteReady) => void;
    let onError!: (error: Error) => void;
    let onExit!: (code: number) => void;
    const ready = await new Promise<PGliteReady>((resolve, reject) => {
      onMessage = resolve;
      onError = reject;
      onExit = (code) => reject(new Error(`the PGlite worker thread exited (code ${code}) while opening`));
      worker.once('message', onMessage).once('error', onError).once('exit', onExit);
    }).finally(() => worker.off('message', onMessage).off('error', onError).off('exit', onExit));
    if (!ready.ready) {
      await worker.terminate();
      throw deserializeError(ready.error);
    }
    return new PGliteThread(worker);
  }

  get closed(): boolean {
    return this.#closed;
  }

  query<R>(sql: string, params: unknown[] = []): Promise<PGliteQueryResult<R>> {
    return this.#query<R>(sql, params, false);
  }

  async exec(sql: string): Promise<unknown> {
    await this.#call({ op: 'exec', sql });
    return undefined;
  }

  async transaction<T>(callback: (transaction: PGliteSession) => Promise<T>): Promise<T> {
    await this.#call({ op: 'begin' });
    let result: T;
    try {
      result = await callback({ query: (sql, params = []) => this.#query(sql, params, true) });
    } catch (error) {
      await this.#call({ op: 'rollback' });
      throw error;
    }
    await this.#call({ op: 'commit' });
    return result;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    try {
      await this.#call({ op: 'close' });
    } finally {
      this.#closed = true;
      await this.#worker.terminate();
    }
  }

  async #query<R>(sql: string, params: unknown[], inTransaction: boolean): Promise<PGliteQueryResult<R>> {
    const response = await this.#call({ op: 'query', sql, params, inTransaction });
    return response.result as PGliteQueryResult<R>;
  }

  async #call(request: DistributiveOmit<PGliteRequest, 'id'>): Promise<PGliteResponse & { ok: true }> {
    if (this.#exitError) throw this.#exitError;
    if (this.#closed) throw new Error('PGlite is closed');
    const id = this.#nextId++;
    const response = await new Promise<PGliteResponse>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ ...request, id });
    });
    if (!response.ok) throw deserializeError(response.error);
    return response;
  }

  #fail(error: Error): void {
    if (this.#closed) return;
    this.#exitError ??= error;
    this.#closed = true;
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** The built worker module next to this one; from the sources (tests) the built one in dist. */
function workerFile(): URL {
  const here = new URL('./pglite-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(here))) return here;
  return new URL(here.href.replace(/\/src\/pglite\/pglite-worker\.js$/u, '/dist/pglite/pglite-worker.js'));
}
