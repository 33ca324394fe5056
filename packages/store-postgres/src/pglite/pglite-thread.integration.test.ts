import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installedPGliteVersion } from './open-pglite.js';
import { PGliteThread, prestartPGliteThread } from './pglite-thread.js';
import { fitSharedBuffers } from './shared-buffers.js';

describe('PGlite on a worker thread', () => {
  let pglite: PGliteThread;
  beforeAll(async () => {
    pglite = await PGliteThread.open(undefined);
    await pglite.exec('CREATE TABLE t (id int PRIMARY KEY, note text)');
  }, 60_000);
  afterAll(() => pglite?.close());

  it('answers queries with their rows and affected counts', async () => {
    const inserted = await pglite.query('INSERT INTO t VALUES ($1, $2), ($3, $4)', [1, 'one', 2, 'two']);
    expect(inserted.affectedRows).toBe(2);
    const read = await pglite.query<{ id: number; note: string }>('SELECT id, note FROM t ORDER BY id');
    expect(read.rows).toEqual([
      { id: 1, note: 'one' },
      { id: 2, note: 'two' },
    ]);
  });

  it("starts every session with the store's session settings", async () => {
    // Set before pgvector is loaded, the value is kept and taken by pgvector when it loads.
    const shown = await pglite.query<{ setting: string }>(
      "SELECT current_setting('hnsw.iterative_scan', true) AS setting",
    );
    expect(shown.rows).toEqual([{ setting: 'strict_order' }]);
  });

  it('passes a database error over with its SQLSTATE and message', async () => {
    const failed = await pglite
      .query('INSERT INTO t VALUES (1, $1)', ['again'])
      .catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(Error);
    expect(failed).toMatchObject({ code: '23505', message: expect.stringContaining('duplicate key') });
  });

  it('commits a transaction whose callback resolves and rolls back one whose callback throws', async () => {
    await pglite.transaction((tx) => tx.query('INSERT INTO t VALUES (10, $1)', ['kept']));
    const thrown = await pglite
      .transaction(async (tx) => {
        await tx.query('INSERT INTO t VALUES (11, $1)', ['dropped']);
        throw new Error('changed my mind');
      })
      .catch((error: unknown) => error);
    expect((thrown as Error).message).toBe('changed my mind');
    const ids = await pglite.query<{ id: number }>('SELECT id FROM t WHERE id >= 10 ORDER BY id');
    expect(ids.rows).toEqual([{ id: 10 }]);
  });

  it('keeps a small write-ahead log, whatever the cluster’s own settings say', async () => {
    const settings = await pglite.query<{ name: string; setting: string; unit: string }>(
      "SELECT name, setting, unit FROM pg_settings WHERE name IN ('max_wal_size', 'min_wal_size') ORDER BY name",
    );
    expect(settings.rows).toEqual([
      { name: 'max_wal_size', setting: '64', unit: 'MB' },
      { name: 'min_wal_size', setting: '32', unit: 'MB' },
    ]);
  });

  it('keeps the caller’s event loop free while a statement runs', async () => {
    let ticks = 0;
    const timer = setInterval(() => {
      ticks += 1;
    }, 5);
    const ticksWhenDone = await pglite.query('SELECT pg_sleep(0.3)').then(() => ticks);
    clearInterval(timer);
    // PGlite on the calling thread would run the statement synchronously: no tick until it ended.
    expect(ticksWhenDone).toBeGreaterThan(5);
  });
});

describe('in-memory databases from the empty-cluster copy', () => {
  it('start empty and stay apart, whether the copy was there or not', async () => {
    const first = await PGliteThread.open(undefined);
    await first.exec('CREATE TABLE only_here (id int)');
    // The copy exists now (written by this open or an earlier one); the second open starts from it.
    const copy = join(
      tmpdir(),
      `powercontext-${process.getuid?.() ?? 'user'}`,
      `pglite-${installedPGliteVersion()}-empty-cluster.tar.gz`,
    );
    expect(existsSync(copy)).toBe(true);
    const second = await PGliteThread.open(undefined);
    const tables = await second.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'only_here'",
    );
    expect(tables.rows).toEqual([{ n: 0 }]);
    await Promise.all([first.close(), second.close()]);
  }, 60_000);
});

describe('a PGlite thread started ahead of its open', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pc-pglite-prestart-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes nothing before the open, which takes it and starts with the shared buffers asked for', async () => {
    const pgliteDir = join(dir, 'pglite');
    prestartPGliteThread();
    prestartPGliteThread(); // a second call keeps the one thread
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(existsSync(pgliteDir)).toBe(false);
    const pglite = await PGliteThread.open(pgliteDir, { sharedBuffers: '16MB' });
    try {
      const shown = await pglite.query<{ shared_buffers: string }>('SHOW shared_buffers');
      expect(shown.rows).toEqual([{ shared_buffers: '16MB' }]);
    } finally {
      await pglite.close();
    }
    // The setting held for that run only: the cluster keeps its own.
    const again = await PGliteThread.open(pgliteDir);
    try {
      const shown = await again.query<{ shared_buffers: string }>('SHOW shared_buffers');
      expect(shown.rows).toEqual([{ shared_buffers: '128MB' }]);
    } finally {
      await again.close();
    }
    // `fit`: the size fitSharedBuffers gives this directory (an empty cluster: the 32 MB floor).
    const fitted = await PGliteThread.open(pgliteDir, { sharedBuffers: 'fit' });
    try {
      const shown = await fitted.query<{ shared_buffers: string }>('SHOW shared_buffers');
      expect(shown.rows).toEqual([{ shared_buffers: fitSharedBuffers(pgliteDir) }]);
      expect(shown.rows).toEqual([{ shared_buffers: '32MB' }]);
    } finally {
      await fitted.close();
    }
  }, 120_000);

  it('refuses a shared_buffers value that is not a size', async () => {
    await expect(PGliteThread.open(undefined, { sharedBuffers: '32MB -c fsync=off' })).rejects.toThrow(
      'is not a size',
    );
  });
});

describe('PGlite worker thread failures', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pc-pglite-thread-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('rejects the open, without hanging, when PGlite cannot start', async () => {
    const notADirectory = join(dir, 'a-file');
    writeFileSync(notADirectory, 'not a database');
    await expect(PGliteThread.open(notADirectory)).rejects.toBeInstanceOf(Error);
  }, 60_000);

  it('refuses statements once closed, and closes twice without error', async () => {
    const pglite = await PGliteThread.open(undefined);
    await pglite.close();
    await pglite.close();
    expect(pglite.closed).toBe(true);
    await expect(pglite.query('SELECT 1')).rejects.toThrow('PGlite is closed');
  }, 60_000);
});
