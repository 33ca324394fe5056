import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemoryService } from '@powercontext/memory-core';
import { createFakeEmbedder } from '@powercontext/memory-core/testing';
import { createRrfRetrievalPolicy } from '@powercontext/retrieval-rrf';
import { afterEach, describe, expect, it } from 'vitest';
import { createPGliteMemoryStore, createPostgresMemoryStore } from './create-store.js';
import { PGliteThread } from './pglite/pglite-thread.js';

const directories: string[] = [];
const packageDir = fileURLToPath(new URL('..', import.meta.url));

/** Opens the data directory from another Node process through the built package, as a second server would. */
function openInChildProcess(dataDir: string): Promise<{ code: number | null; stderr: string }> {
  const script = `import('@powercontext/store-postgres').then((m) => m.createPGliteMemoryStore({ dataDir: process.argv[1] }))
    .then(async (s) => { await s.close(); }, (e) => { console.error(e.message); process.exit(3); });`;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--input-type=module', '-e', script, dataDir],
      { cwd: packageDir },
      (error, _stdout, stderr) => resolve({ code: error ? (error.code as number) : 0, stderr }),
    );
  });
}
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'pc-pglite-'));
  directories.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of directories.splice(0)) rmSync(dir, { recursive: true, force: true });
});

// Each test opens PGlite on disk several times: seconds per open on a busy two-core machine.
describe('PGlite on disk', { timeout: 120_000 }, () => {
  it('persists revisions across a reopen and refuses a second opener while open', async () => {
    const dataDir = freshDir();
    const store = await createPGliteMemoryStore({ dataDir });
    const embedder = createFakeEmbedder();
    await store.prepareEmbeddingProfile(embedder.profile);
    const service = new MemoryService({ store, embedder, retrievalPolicy: createRrfRetrievalPolicy() });
    const written = await service.remember('scope', { entries: [{ text: 'kept on disk' }] });

    await expect(createPGliteMemoryStore({ dataDir })).rejects.toMatchObject({
      code: 'store_incompatible',
      message: expect.stringContaining('already open in this process') as unknown as string,
    });
    const other = await openInChildProcess(dataDir);
    expect(other.code).not.toBe(0);
    expect(other.stderr).toContain(`in use by process ${process.pid}`);
    await store.close();

    const reopened = await createPGliteMemoryStore({ dataDir });
    try {
      expect(await reopened.head('scope')).toEqual(written.memory);
      const again = new MemoryService({
        store: reopened,
        embedder,
        retrievalPolicy: createRrfRetrievalPolicy(),
      });
      const result = await again.search('scope', { query: 'disk', mode: 'hybrid' });
      expect(result.hits.map((hit) => hit.text)).toEqual(['kept on disk']);
    } finally {
      await reopened.close();
    }
  }, 120_000); // two opens on disk and a child process: slow on a busy machine

  it('takes over a lock left by a process that no longer runs', async () => {
    const dataDir = freshDir();
    writeFileSync(join(dataDir, 'powercontext.lock'), '999999999\n');
    const store = await createPGliteMemoryStore({ dataDir });
    expect(readFileSync(join(dataDir, 'powercontext.lock'), 'utf8').split(' ')[0]).toBe(String(process.pid));
    await store.close();
  });

  it('takes over a lock naming its own pid that it does not hold (a restarted container)', async () => {
    const dataDir = freshDir();
    writeFileSync(join(dataDir, 'powercontext.lock'), `${process.pid} left-by-a-previous-life\n`);
    const store = await createPGliteMemoryStore({ dataDir });
    expect(readFileSync(join(dataDir, 'powercontext.lock'), 'utf8')).not.toContain('left-by-a-previous-life');
    await store.close();
  });

  it('refuses a data directory written by another PGlite version, with a message', async () => {
    const dataDir = freshDir();
    writeFileSync(join(dataDir, 'powercontext.json'), JSON.stringify({ format: 1, pgliteVersion: '0.4.0' }));
    await expect(createPGliteMemoryStore({ dataDir })).rejects.toMatchObject({
      code: 'store_incompatible',
      message: expect.stringMatching(
        /written by PGlite 0\.4\.0.*not compatible on disk/,
      ) as unknown as string,
    });
    // The failed open released its lock: a correct manifest opens fine afterwards.
    rmSync(join(dataDir, 'powercontext.json'));
    const store = await createPGliteMemoryStore({ dataDir });
    await store.close();
  });

  it('refuses to reopen with a different text search configuration', async () => {
    const dataDir = freshDir();
    await (await createPGliteMemoryStore({ dataDir })).close();
    await expect(createPGliteMemoryStore({ dataDir, textSearchConfig: 'simple' })).rejects.toMatchObject({
      code: 'store_incompatible',
      message: expect.stringContaining('"english"') as unknown as string,
    });
  });

  it('refuses a data directory a newer version migrated, though its reopen reads the schema in one go', async () => {
    const dataDir = freshDir();
    await (await createPGliteMemoryStore({ dataDir })).close();
    const raw = await PGliteThread.open(join(dataDir, 'pglite'));
    await raw.query(
      "INSERT INTO kysely_migration (name, timestamp) VALUES ('9999_from_a_newer_version', '')",
    );
    await raw.close();
    await expect(createPGliteMemoryStore({ dataDir })).rejects.toMatchObject({
      code: 'store_incompatible',
      message: expect.stringContaining('9999_from_a_newer_version') as unknown as string,
    });
  });

  it('starts new data directories from a private migrated copy, one per text search configuration', async () => {
    const templates = join(tmpdir(), `powercontext-${process.getuid?.() ?? 'user'}`);
    const schemaCopies = () => readdirSync(templates).filter((name) => /-schema-[0-9a-f]{16}$/.test(name));
    for (const textSearchConfig of ['english', 'simple'] as const) {
      // Twice each: the first open may make the copy, the second certainly starts from it.
      for (const text of ['Running shoes by the door', 'She was running late']) {
        const store = await createPGliteMemoryStore({ dataDir: freshDir(), textSearchConfig });
        try {
          const embedder = createFakeEmbedder();
          await store.prepareEmbeddingProfile(embedder.profile);
          const service = new MemoryService({ store, embedder, retrievalPolicy: createRrfRetrievalPolicy() });
          await service.remember('scope', { entries: [{ text }] });
          // The copy answers as a database migrated in place: fully migrated, with the configuration
          // asked for (english stems "running" to "run"; simple does not).
          const stemmed = await service.search('scope', { query: 'run', mode: 'fts' });
          expect(stemmed.hits).toHaveLength(textSearchConfig === 'english' ? 1 : 0);
        } finally {
          await store.close();
        }
      }
    }
    const copies = schemaCopies();
    expect(copies.length).toBeGreaterThanOrEqual(2);
    expect(statSync(templates).mode & 0o077).toBe(0);
  });
});

describe('PostgreSQL unreachable', () => {
  it('fails fast with the typed, retryable store_unavailable error', async () => {
    await expect(
      createPostgresMemoryStore({ connectionString: 'postgres://postgres@127.0.0.1:1/none' }),
    ).rejects.toMatchObject({ code: 'store_unavailable', retryable: true });
  });
});
