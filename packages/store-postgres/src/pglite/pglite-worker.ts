/**
 * The worker side of PGliteThread: owns one PGlite instance and runs the statements the main thread
 * sends, one at a time, in the order they came. Started by `PGliteThread`, never imported.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { parentPort, threadId, workerData } from 'node:worker_threads';
import type { PGlite, PGliteOptions, Transaction } from '@electric-sql/pglite';
import { SESSION_START_PARAMS } from '../session-settings.js';
import { type HeldTransaction, holdTransaction } from './held-transaction.js';
import { pgliteExtensions } from './pglite-extensions.js';
import {
  type PGliteOpen,
  type PGliteReady,
  type PGliteRequest,
  type PGliteResponse,
  serializeError,
} from './pglite-protocol.js';
import { installedPGliteVersion } from './pglite-version.js';
import { privateTemplateFolder, seedFromTemplate } from './private-templates.js';
import { fitSharedBuffers } from './shared-buffers.js';

const port = parentPort!;

// PGlite and its extensions load as soon as the thread starts, before it is told what to open: a
// thread started ahead of the open (prestartPGliteThread) has this behind it by then. So does PGlite's
// file system for a data directory, which `PGlite.create` would otherwise import itself, after the
// module is compiled (about 15 ms on the way to an open data directory; an in-memory open never uses it).
const loading = Promise.all([
  import('@electric-sql/pglite'),
  pgliteExtensions(),
  import('@electric-sql/pglite/nodefs'),
]);
loading.catch(() => {}); // reported by the open
// PostgreSQL's WebAssembly module is read and compiled then too; if that fails, PGlite does it itself.
const compiled = compilePGliteModule();
compiled.catch(() => {});

/**
 * The write-ahead log an embedded database keeps: PostgreSQL keeps as many recycled segments as it
 * expects the next checkpoint to need, up to max_wal_size (1 GB by default), so after a large import a
 * data directory held about 160 MB of log beside 118 MB of data (10,000 entries). A data directory is
 * the user's disk: it keeps 32 to 64 MB (RFC 0002, "Storage for search"). PostgreSQL servers keep their
 * own settings.
 */
const WAL_SETTINGS = ['-c', 'max_wal_size=64MB', '-c', 'min_wal_size=32MB'];

/**
 * PGlite runs PostgreSQL as a single backend: no client connections beside it, no autovacuum workers,
 * no WAL senders, no huge pages. PostgreSQL still sizes its shared memory (lock table, process slots,
 * rounded up to 2 MB) for 100 connections, 16 autovacuum worker slots and 10 WAL senders by default:
 * 12 MB with 4 MB of buffers, which PGlite zeroes at every start (about 3 ms a megabyte on a 2-core
 * machine). Sized for what it runs it is 6.6 MB, and the lock table still has room for 448 locks: the
 * store's whole schema is 49 relations.
 */
const SINGLE_BACKEND_SETTINGS = [
  '-c',
  'max_connections=4',
  '-c',
  'max_wal_senders=0',
  '-c',
  'autovacuum_max_workers=1',
  '-c',
  'autovacuum_worker_slots=1',
  '-c',
  'huge_pages=off',
];

let pglite: PGlite;
port.once('message', (open: PGliteOpen) => {
  void openDatabase(open);
});

async function openDatabase(open: PGliteOpen): Promise<void> {
  try {
    // Measured while the module still compiles, before anything else waits on this thread. An in-memory
    // database fits its pool too: its files are in memory already, so a larger pool saves no reads.
    const fit =
      open.sharedBuffers === 'fit' || (open.sharedBuffers === undefined && open.pgliteDir === undefined);
    const sharedBuffers = fit ? fitSharedBuffers(open.pgliteDir) : open.sharedBuffers;
    const [{ PGlite }, extensions] = await loading;
    // Start parameters hold for this run only (postgresql.conf is not written), so they never reach a template.
    const startParams = {
      startParams: [
        ...PGlite.defaultStartParams,
        ...WAL_SETTINGS,
        ...SINGLE_BACKEND_SETTINGS,
        ...SESSION_START_PARAMS,
        ...(sharedBuffers === undefined ? [] : ['-c', `shared_buffers=${sharedBuffers}`]),
      ],
    };
    const pgliteWasmModule = await compiled.catch(() => undefined);
    const create = (options: PGliteOptions = {}) =>
      PGlite.create({ ...options, extensions, ...(pgliteWasmModule ? { pgliteWasmModule } : {}) });
    pglite =
      open.pgliteDir === undefined
        ? await createInMemory(create, startParams)
        : await createOnDisk(create, open.pgliteDir, startParams);
  } catch (error) {
    port.postMessage({ ready: false, error: serializeError(error) } satisfies PGliteReady);
    port.close();
    return;
  }
  port.on('message', serve);
  port.postMessage({ ready: true } satisfies PGliteReady);
}

/**
 * V8 flags for compiling PostgreSQL's module, when the process did not choose its own (rfcs/0001, "A
 * library starts as the command does"): the baseline compiler only (`--liftoff-only`), each function
 * checked when it is first compiled (`--wasm-lazy-validation`). The `powercontext` commands set them
 * for their whole process; an application that opens the store through `createRuntime` cannot, so the
 * thread sets them for the compile and clears them once it is done (V8's flags are the process's).
 * Node 24's V8 no longer takes flags at run time: there this does nothing.
 */
const QUICK_COMPILE_FLAGS = ['--liftoff-only', '--wasm-lazy-validation'] as const;

/** PGlite's `pglite.wasm`, compiled with V8's baseline compiler (QUICK_COMPILE_FLAGS). */
async function compilePGliteModule(): Promise<PGliteOptions['pgliteWasmModule']> {
  const bytes = await readFile(new URL('pglite.wasm', import.meta.resolve('@electric-sql/pglite')));
  // The global WebAssembly object; this package's types (no DOM library) do not declare it.
  const { WebAssembly: wasm } = globalThis as unknown as {
    WebAssembly: { compile(bytes: Uint8Array): Promise<PGliteOptions['pgliteWasmModule']> };
  };
  // Flags the process chose (on its command line, or at run time: PrestartOptions) stay as they are.
  const chosen = (flag: string) =>
    process.execArgv.some((arg) => arg === flag || arg === flag.replace('--', '--no-'));
  const scoped = (workerData as { setCompileFlags?: boolean } | null)?.setCompileFlags !== false;
  const set = scoped ? QUICK_COMPILE_FLAGS.filter((flag) => !chosen(flag)) : [];
  for (const flag of set) setFlagsFromString(flag);
  try {
    return await wasm.compile(bytes);
  } finally {
    for (const flag of set) setFlagsFromString(flag.replace('--', '--no-'));
  }
}

/**
 * An in-memory database starts from a copy of an empty cluster kept in this user's temporary folder,
 * which skips initdb: about a third of the time (2.1-3.2 s against 5.6-8.1 s on a busy 2-core
 * machine). Tests open many. The copy is made by the first open and written atomically; one that
 * cannot be read is replaced. Only a folder of this user's own, closed to others, is trusted.
 */
async function createInMemory(
  create: (options?: PGliteOptions) => Promise<PGlite>,
  startParams: PGliteOptions,
): Promise<PGlite> {
  const folder = privateTemplateFolder();
  const file = folder && join(folder, `pglite-${installedPGliteVersion()}-empty-cluster.tar.gz`);
  if (file && existsSync(file)) {
    try {
      return await create({ ...startParams, loadDataDir: new Blob([readFileSync(file)]) });
    } catch {
      rmSync(file, { force: true });
    }
  }
  const fresh = await create(startParams);
  if (file) {
    try {
      const dump = Buffer.from(await (await fresh.dumpDataDir('gzip')).arrayBuffer());
      const partial = `${file}.${process.pid}-${threadId}.partial`;
      writeFileSync(partial, dump, { mode: 0o600 });
      renameSync(partial, file);
    } catch {
      // Only a cache: the next open makes it again.
    }
  }
  return fresh;
}

/**
 * A new data directory starts as a file copy of an empty cluster kept in this user's temporary folder
 * (made once per PGlite version by running initdb into it and closing it cleanly), instead of running
 * initdb in the new directory: initdb inside WebAssembly costs several CPU-seconds, a copy of the
 * folder a fraction of one. An existing data directory opens as it is. The same trust rule as the
 * in-memory copy applies: only a folder of this user's own, closed to others.
 */
async function createOnDisk(
  create: (options?: PGliteOptions) => Promise<PGlite>,
  dataDir: string,
  startParams: PGliteOptions,
): Promise<PGlite> {
  await seedFromTemplate(
    dataDir,
    () => `pglite-${installedPGliteVersion()}-empty-data-dir`,
    async (dir) => {
      await (await create({ dataDir: dir })).close();
    },
  );
  return create({ ...startParams, dataDir });
}

let held: HeldTransaction<Transaction> | undefined;

async function run(request: PGliteRequest): Promise<PGliteResponse> {
  switch (request.op) {
    case 'query': {
      const target = request.inTransaction ? held?.transaction : pglite;
      if (!target) throw new Error('no open transaction');
      const result = await target.query(request.sql, request.params);
      return {
        id: request.id,
        ok: true,
        result: {
          rows: result.rows,
          ...(result.affectedRows === undefined ? {} : { affectedRows: result.affectedRows }),
        },
      };
    }
    case 'exec':
      await pglite.exec(request.sql);
      return { id: request.id, ok: true };
    case 'begin':
      held = await holdTransaction<Transaction>((callback) => pglite.transaction(callback));
      return { id: request.id, ok: true };
    case 'commit':
    case 'rollback': {
      const current = held;
      held = undefined;
      await current?.finish(request.op === 'commit');
      return { id: request.id, ok: true };
    }
    case 'close':
      if (!pglite.closed) await pglite.close();
      return { id: request.id, ok: true };
  }
}

let queue: Promise<unknown> = Promise.resolve();
function serve(request: PGliteRequest): void {
  queue = queue.then(async () => {
    let response: PGliteResponse;
    try {
      response = await run(request);
    } catch (error) {
      response = { id: request.id, ok: false, error: serializeError(error) };
    }
    port.postMessage(response);
    if (request.op === 'close') port.close();
  });
}
