import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createScriptedReranker } from '@powercontext/memory-core/testing';
import { PGliteThread } from '@powercontext/store-postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRuntime } from './create-runtime.js';
import { closeEmbeddedStoreAhead, openEmbeddedStoreAhead } from './prestart.js';
import { loadRuntimeConfig } from './runtime-config.js';

const root = mkdtempSync(join(tmpdir(), 'pc-runtime-prestart-'));
const dataDir = join(root, 'store');
const env = { POWERCONTEXT_SERVER_DATA_DIR: dataDir };
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(async () => {
  vi.restoreAllMocks();
  await closeEmbeddedStoreAhead();
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
describe('openEmbeddedStoreAhead', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    await (await createRuntime({ env })).close(); // an existing store
  });

  it('begins the open that createRuntime then takes, with the same shared buffers', async () => {
    expect(await openEmbeddedStoreAhead({ env }, { pgliteSharedBuffers: '32MB' })).toBe(true);
    const opens = vi.spyOn(PGliteThread, 'open');
    const runtime = await createRuntime({ env, pgliteSharedBuffers: '32MB' });
    try {
      expect(opens).not.toHaveBeenCalled();
      await runtime.memory.forScope('s').remember({ entries: [{ text: 'opened ahead' }] });
      expect((await runtime.memory.forScope('s').search({ query: 'opened' })).hits).toHaveLength(1);
    } finally {
      await runtime.close();
    }
    expect(existsSync(join(dataDir, 'powercontext.lock'))).toBe(false);
  });

  it('takes a configuration as well as an environment', async () => {
    expect(await openEmbeddedStoreAhead({ config: loadRuntimeConfig(env) })).toBe(true);
    const runtime = await createRuntime({ env });
    await runtime.close();
  });

  it.each([
    [
      'an invalid setting',
      { POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_ENABLED: 'yes' },
      'must be true or false',
    ],
    [
      'a reranker without its model',
      { POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_ENABLED: 'true' },
      'POWERCONTEXT_SERVER_INFERENCE_GENERATION_MODEL',
    ],
    [
      'a write gate without a decision model',
      { POWERCONTEXT_SERVER_RUNTIME_MEMORY_WRITE_GATE_MODE: 'advisory' },
      'POWERCONTEXT_SERVER_RUNTIME_MEMORY_WRITE_GATE_MODE',
    ],
  ])(
    'opens nothing for %s: createRuntime refuses it and the directory is untouched',
    async (_name, extra, message) => {
      const before = snapshot(dataDir);
      expect(await openEmbeddedStoreAhead({ env: { ...env, ...extra } })).toBe(false);
      await expect(createRuntime({ env: { ...env, ...extra } })).rejects.toMatchObject({
        code: 'configuration_error',
        message: expect.stringContaining(message) as unknown as string,
      });
      expect(snapshot(dataDir)).toEqual(before);
    },
  );

  it('opens nothing on PostgreSQL or for a new data directory', async () => {
    expect(
      await openEmbeddedStoreAhead({ env: { POWERCONTEXT_SERVER_DATABASE_URL: 'postgres://nowhere/db' } }),
    ).toBe(false);
    const fresh = join(root, 'new');
    expect(await openEmbeddedStoreAhead({ env: { POWERCONTEXT_SERVER_DATA_DIR: fresh } })).toBe(false);
    expect(existsSync(fresh)).toBe(false);
  });
});

// rfcs/0001, "A library starts as the command does": createRuntime begins the open itself when nothing
// is left to refuse before it, so that PostgreSQL starts while the composition and the store load.
describe('createRuntime on an existing data directory', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    await (await createRuntime({ env })).close(); // an existing store
  });

  it('begins the open before its composition loads, and its store takes that open', async () => {
    const begins = vi.spyOn(PGliteThread, 'begin');
    const opens = vi.spyOn(PGliteThread, 'open');
    const runtime = await createRuntime({ env });
    try {
      expect(opens).not.toHaveBeenCalled(); // the store's own open would call it
      expect(begins).toHaveBeenCalledTimes(1);
      await runtime.memory.forScope('ahead').remember({ entries: [{ text: 'begun by createRuntime' }] });
      expect((await runtime.memory.forScope('ahead').search({ query: 'begun' })).hits).toHaveLength(1);
    } finally {
      await runtime.close();
    }
    expect(existsSync(join(dataDir, 'powercontext.lock'))).toBe(false);
  });

  it('opens it after resolving the adapters when the configuration could still refuse the run', async () => {
    const opens = vi.spyOn(PGliteThread, 'open');
    const reranker = createScriptedReranker({ policyId: 'test.keep' });
    const runtime = await createRuntime({
      env: { ...env, POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_ENABLED: 'true' },
      reranker,
    });
    try {
      expect(opens).toHaveBeenCalledTimes(1);
      expect(runtime.capabilities().rerank?.policyId).toBe('test.keep');
    } finally {
      await runtime.close();
    }
  });

  it('opens two directories at once, each runtime its own', async () => {
    const other = join(root, 'other');
    await (await createRuntime({ env: { POWERCONTEXT_SERVER_DATA_DIR: other } })).close();
    const runtimes = await Promise.all([
      createRuntime({ env }),
      createRuntime({ env: { POWERCONTEXT_SERVER_DATA_DIR: other } }),
    ]);
    try {
      await runtimes[0].memory.forScope('two').remember({ entries: [{ text: 'first directory' }] });
      await runtimes[1].memory.forScope('two').remember({ entries: [{ text: 'second directory' }] });
      const texts = await Promise.all(
        runtimes.map(async (runtime) =>
          (await runtime.memory.forScope('two').search({ query: 'directory' })).hits.map((hit) => hit.text),
        ),
      );
      expect(texts).toEqual([['first directory'], ['second directory']]);
    } finally {
      await Promise.all(runtimes.map((runtime) => runtime.close()));
    }
    expect(existsSync(join(dataDir, 'powercontext.lock'))).toBe(false);
    expect(existsSync(join(other, 'powercontext.lock'))).toBe(false);
  });
});
