import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime } from '@powercontext/runtime';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { directorySnapshot } from '../testing-support/directory-snapshot.js';
import { runServerCommand } from './run-server-command.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** Runs the command, returning its exit code and what it printed on stderr. */
async function run(argv: string[], env: Record<string, string> = {}) {
  const printed: string[] = [];
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    printed.push(args.join(' '));
  });
  const code = await runServerCommand(argv, env);
  return { code, stderr: printed.join('\n') };
}

describe('runServerCommand: refusing to start', () => {
  it.each([
    [['--port', 'eighty'], {}, 'POWERCONTEXT_SERVER_PORT: must be an integer'],
    [
      [],
      { POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_ENABLED: 'yes' },
      'POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_ENABLED: must be true or false',
    ],
    [
      ['--api-keys-file', '/nonexistent/keys.json'],
      {},
      'POWERCONTEXT_SERVER_API_KEYS_FILE: cannot read /nonexistent/keys.json (ENOENT)',
    ],
    [
      [],
      { POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_ENABLED: 'true' },
      'POWERCONTEXT_SERVER_INFERENCE_GENERATION_MODEL: is required when',
    ],
  ])('exits 1 for %j %j with the configuration error', async (argv, env, message) => {
    const { code, stderr } = await run(
      ['--port', '0', '--data-dir', '/nonexistent/never-opened', ...argv],
      env,
    );
    expect(code).toBe(1);
    expect(stderr).toContain(`powercontext server: configuration_error: ${message}`);
  });

  it('exits 2 with the usage for an unknown flag or a flag without its value', async () => {
    for (const argv of [['--colour', 'blue'], ['--port']]) {
      const { code, stderr } = await run(argv);
      expect(code).toBe(2);
      expect(stderr).toContain('Usage: powercontext server run');
    }
  });
});

// The embedded store opens ahead of the runtime once nothing can refuse the run: not before.
describe('runServerCommand: refusing to start on an existing data directory', { timeout: 120_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'pc-server-refuse-'));
  let taken: Server;
  beforeAll(async () => {
    await (await createRuntime({ env: { POWERCONTEXT_SERVER_DATA_DIR: dataDir } })).close();
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => taken.close(resolve));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('leaves the directory untouched when the configuration fails', async () => {
    const before = directorySnapshot(dataDir);
    const { code, stderr } = await run(['--port', '0', '--data-dir', dataDir], {
      POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_ENABLED: 'true',
    });
    expect(code).toBe(1);
    expect(stderr).toContain('POWERCONTEXT_SERVER_INFERENCE_GENERATION_MODEL: is required when');
    expect(directorySnapshot(dataDir)).toEqual(before);
  });

  it('leaves the directory untouched when the port cannot be bound', async () => {
    const before = directorySnapshot(dataDir);
    const { port } = taken.address() as { port: number };
    const { code, stderr } = await run(['--port', String(port), '--data-dir', dataDir]);
    expect(code).toBe(1);
    expect(stderr).toContain('powercontext server: cannot listen:');
    expect(directorySnapshot(dataDir)).toEqual(before);
  });
});
