import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPGliteMemoryStore } from '../create-store.js';
import { closeOpenedAhead, openedAheadFor, openPGliteAhead } from './open-ahead.js';
import { PGliteThread } from './pglite-thread.js';

const packageDir = fileURLToPath(new URL('../..', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'pc-open-ahead-'));
const dataDir = join(root, 'store');
const lockFile = join(dataDir, 'powercontext.lock');
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => {
  vi.restoreAllMocks();
});

/** Every file under `dir` with its size and modification time: what an open would change. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const stat = statSync(join(dir, name));
    if (stat.isFile()) files[name] = `${stat.size}@${stat.mtimeMs}`;
  }
  return files;
}

// Each test opens PGlite on disk: seconds per open on a busy two-core machine.
describe('an existing data directory opened ahead of its store', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    await (await createPGliteMemoryStore({ dataDir })).close(); // an existing, migrated store
  });

  it('is taken by the store of the same directory and settings, with the lock it took', async () => {
    expect(await openPGliteAhead(dataDir, { sharedBuffers: '16MB' })).toBe(true);
    expect(existsSync(lockFile)).toBe(true);
    // A second open ahead, and another opener in this process, meet the lock.
    expect(await openPGliteAhead(dataDir)).toBe(false);
    const opens = vi.spyOn(PGliteThread, 'open');
    const store = await createPGliteMemoryStore({ dataDir: `${dataDir}/.`, sharedBuffers: '16MB' });
    try {
      expect(opens).not.toHaveBeenCalled(); // the database opened ahead, not a second one
      await expect(createPGliteMemoryStore({ dataDir })).rejects.toMatchObject({
        code: 'store_incompatible',
        message: expect.stringContaining('already open in this process') as unknown as string,
      });
    } finally {
      await store.close();
    }
    expect(existsSync(lockFile)).toBe(false);
  });

  it('is closed, and its lock released, when the store opens other settings', async () => {
    expect(await openPGliteAhead(dataDir, { sharedBuffers: '16MB' })).toBe(true);
    const opens = vi.spyOn(PGliteThread, 'open');
    const store = await createPGliteMemoryStore({ dataDir });
    try {
      expect(opens).toHaveBeenCalledTimes(1);
      expect(opens.mock.calls[0]![1]).toEqual({});
    } finally {
      await store.close();
    }
    expect(existsSync(lockFile)).toBe(false);
  });

  it('is left to its own store when a store of another directory opens, and closed only by its own directory', async () => {
    const other = join(root, 'other');
    await (await createPGliteMemoryStore({ dataDir: other })).close();
    expect(await openPGliteAhead(dataDir)).toBe(true);
    expect(openedAheadFor(dataDir, undefined)).toBe(true);
    expect(openedAheadFor(other, undefined)).toBe(false);
    expect(openedAheadFor(dataDir, '16MB')).toBe(false);
    const otherStore = await createPGliteMemoryStore({ dataDir: other }); // e.g. a second createRuntime
    await closeOpenedAhead(other); // nothing of the other directory's is open ahead
    expect(openedAheadFor(dataDir, undefined)).toBe(true);
    const opens = vi.spyOn(PGliteThread, 'open');
    const store = await createPGliteMemoryStore({ dataDir });
    try {
      expect(opens).not.toHaveBeenCalled(); // it took the open begun ahead
      expect(openedAheadFor(dataDir, undefined)).toBe(false);
    } finally {
      await Promise.all([store.close(), otherStore.close()]);
    }
    expect(existsSync(lockFile)).toBe(false);

    expect(await openPGliteAhead(dataDir)).toBe(true);
    await closeOpenedAhead(dataDir);
    expect(existsSync(lockFile)).toBe(false);
  });

  it('is closed cleanly by closeOpenedAhead', async () => {
    expect(await openPGliteAhead(dataDir)).toBe(true);
    await closeOpenedAhead();
    expect(existsSync(lockFile)).toBe(false);
    await (await createPGliteMemoryStore({ dataDir })).close();
  });

  it('does nothing, and writes nothing, for a new directory, a held one or a size that is not one', async () => {
    const fresh = join(root, 'never-opened');
    expect(await openPGliteAhead(fresh)).toBe(false);
    expect(existsSync(fresh)).toBe(false);

    const before = snapshot(dataDir);
    expect(await openPGliteAhead(dataDir, { sharedBuffers: '16MB -c fsync=off' })).toBe(false);
    expect(snapshot(dataDir)).toEqual(before);

    const store = await createPGliteMemoryStore({ dataDir });
    try {
      expect(await openPGliteAhead(dataDir)).toBe(false); // held by the store: the store's open would say so
    } finally {
      await store.close();
    }
  });

  it('never keeps the process alive when nothing takes it, and leaves no lock behind', async () => {
    const script = `import('@powercontext/store-postgres/prestart').then(async (m) => {
      m.prestartPGliteThread();
      if (!(await m.openPGliteAhead(process.argv[1]))) process.exit(4);
    });`;
    const started = performance.now();
    const code = await new Promise<number | null>((resolve) => {
      const child = execFile(process.execPath, ['--input-type=module', '-e', script, dataDir], {
        cwd: packageDir,
      });
      child.on('exit', (exitCode) => resolve(exitCode));
    });
    expect(code).toBe(0);
    // It ended on its own, without waiting for PGlite to open (tens of seconds would mean it waited).
    expect(performance.now() - started).toBeLessThan(60_000);
    expect(existsSync(lockFile)).toBe(false);
    const store = await createPGliteMemoryStore({ dataDir });
    await store.close();
  });
});
