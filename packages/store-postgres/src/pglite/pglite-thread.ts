import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  deserializeError,
  type PGliteOpen,
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

/** How PGlite starts for one open. */
export interface PGliteOpenOptions {
  /**
   * PostgreSQL's shared_buffers for this run (`<n>kB`, `<n>MB` or `<n>GB`, or `fit`: sized to the data
   * directory, see `fitSharedBuffers`); default the cluster's own (128 MB for the store's data
   * directories), and `fit` (32 MB) for an in-memory database. PGlite zeroes the whole buffer pool when
   * it starts.
   */
  sharedBuffers?: string;
}

const SHARED_BUFFERS = /^(?:[1-9][0-9]{0,6}(?:kB|MB|GB)|fit)$/;

/** A worker started ahead of its open (prestartPGliteThread), loading PGlite until an open takes it. */
let spare: Worker | undefined;

export interface PrestartOptions {
  /**
   * The process has set V8's quick compile flags (`--liftoff-only`, `--wasm-lazy-validation`) for its
   * whole life with `v8.setFlagsFromString`, as the `powercontext` commands do on Node 20 and 22: the
   * PGlite threads of this process then leave V8's flags alone. Otherwise each thread sets them for its
   * compile of PostgreSQL's module only (pglite-worker.ts, QUICK_COMPILE_FLAGS).
   */
  processSetCompileFlags?: boolean;
}

let processSetCompileFlags = false;

function newWorker(): Worker {
  return new Worker(workerFile(), { workerData: { setCompileFlags: !processSetCompileFlags } });
}

/**
 * Starts a PGlite worker thread now, without opening anything, so that loading PGlite and its
 * extensions overlaps whatever the caller does before it opens a store (for a command, loading the rest
 * of its modules). The next `PGliteThread.open` in this process takes it. An unused one never keeps
 * the process alive, and writes nothing anywhere.
 */
export function prestartPGliteThread(options: PrestartOptions = {}): void {
  if (options.processSetCompileFlags) processSetCompileFlags = true;
  if (spare) return;
  const worker = newWorker();
  const drop = () => {
    if (spare === worker) spare = undefined;
  };
  worker.once('error', drop).once('exit', drop);
  worker.unref();
  spare = worker;
}

function takeSpare(): Worker | undefined {
  const worker = spare;
  spare = undefined;
  if (!worker) return undefined;
  worker.removeAllListeners('error').removeAllListeners('exit');
  return worker;
}

/** A `PGlite.create` under way on a worker thread (`PGliteThread.begin`). */
export interface PendingOpen {
  /** Settles once PGlite is open on the thread (pgvector loaded), or with the reason it is not. */
  readonly opened: Promise<PGliteThread>;
  /** Lets the thread keep the process alive again; call before waiting for `opened`. */
  ref(): void;
}

/** Whether `value` is a shared_buffers size PGliteThread accepts (`<n>kB`, `<n>MB`, `<n>GB` or `fit`). */
export function isSharedBuffersSize(value: string): boolean {
  return SHARED_BUFFERS.test(value);
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

  /** Starts the worker (or takes the prestarted one) and waits until PGlite is open there (pgvector loaded). */
  static async open(pgliteDir: string | undefined, options: PGliteOpenOptions = {}): Promise<PGliteThread> {
    const pending = PGliteThread.begin(pgliteDir, options);
    pending.ref();
    return pending.opened;
  }

  /**
   * Starts the open and returns at once. Until `ref()` the thread does not keep the process alive, so
   * an open begun ahead of its use (openPGliteAhead) that nobody takes never holds the process; the
   * caller that takes it calls `ref()` before it waits.
   */
  static begin(pgliteDir: string | undefined, options: PGliteOpenOptions = {}): PendingOpen {
    const { sharedBuffers } = options;
    if (sharedBuffers !== undefined && !SHARED_BUFFERS.test(sharedBuffers))
      return refused(new Error(`sharedBuffers "${sharedBuffers}" is not a size such as 32MB`));
    const worker = takeSpare() ?? newWorker();
    worker.unref();
    let onMessage!: (ready: PGliteReady) => void;
    let onError!: (error: Error) => void;
    let onExit!: (code: number) => void;
    const ready = new Promise<PGliteReady>((resolve, reject) => {
      onMessage = resolve;
      onError = reject;
      onExit = (code) => reject(new Error(`the PGlite worker thread exited (code ${code}) while opening`));
      worker.once('message', onMessage).once('error', onError).once('exit', onExit);
      worker.postMessage({
        op: 'open',
        pgliteDir,
        ...(sharedBuffers === undefined ? {} : { sharedBuffers }),
      } satisfies PGliteOpen);
    }).finally(() => worker.off('message', onMessage).off('error', onError).off('exit', onExit));
    const opened = ready.then(async (answer) => {
      if (!answer.ready) {
        await worker.terminate();
        throw deserializeError(answer.error);
      }
      return new PGliteThread(worker);
    });
    opened.catch(() => {}); // the caller's to handle once it waits
    return { opened, ref: () => worker.ref() };
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

function refused(error: Error): PendingOpen {
  const opened = Promise.reject(error);
  opened.catch(() => {});
  return { opened, ref: () => {} };
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** The built worker module next to this one; from the sources (tests) the built one in dist. */
function workerFile(): URL {
  const here = new URL('./pglite-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(here))) return here;
  return new URL(here.href.replace(/\/src\/pglite\/pglite-worker\.js$/u, '/dist/pglite/pglite-worker.js'));
}
