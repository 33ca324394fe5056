/**
 * The worker side of PGliteThread: owns one PGlite instance and runs the statements the main thread
 * sends, one at a time, in the order they came. Started by `openPGliteThread`, never imported.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { PGlite, Transaction } from '@electric-sql/pglite';
import {
  type PGliteReady,
  type PGliteRequest,
  type PGliteResponse,
  serializeError,
} from './pglite-protocol.js';

const ROLLBACK = Symbol('rollback');
const port = parentPort!;
const { pgliteDir } = workerData as { pgliteDir: string | undefined };

let pglite: PGlite;
try {
  const [{ PGlite }, { vector }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite-pgvector'),
  ]);
  pglite = await PGlite.create({
    ...(pgliteDir === undefined ? {} : { dataDir: pgliteDir }),
    extensions: { vector },
  });
  port.postMessage({ ready: true } satisfies PGliteReady);
} catch (error) {
  port.postMessage({ ready: false, error: serializeError(error) } satisfies PGliteReady);
  port.close();
}

let transaction: Transaction | undefined;
let settle: { commit: () => void; rollback: () => void } | undefined;
let finished: Promise<unknown> | undefined;

async function run(request: PGliteRequest): Promise<PGliteResponse> {
  switch (request.op) {
    case 'query': {
      const target = request.inTransaction ? transaction : pglite;
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
      await new Promise<void>((ready, failed) => {
        finished = pglite
          .transaction(
            (opened) =>
              new Promise<void>((commit, rollback) => {
                transaction = opened;
                settle = { commit, rollback: () => rollback(ROLLBACK) };
                ready();
              }),
          )
          .catch((error: unknown) => {
            if (error !== ROLLBACK) throw error;
          });
        finished.catch(failed);
      });
      return { id: request.id, ok: true };
    case 'commit':
    case 'rollback': {
      const current = settle;
      settle = undefined;
      if (request.op === 'commit') current?.commit();
      else current?.rollback();
      try {
        await finished;
      } finally {
        transaction = undefined;
        finished = undefined;
      }
      return { id: request.id, ok: true };
    }
    case 'close':
      if (!pglite.closed) await pglite.close();
      return { id: request.id, ok: true };
  }
}

let queue: Promise<unknown> = Promise.resolve();
port.on('message', (request: PGliteRequest) => {
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
});
