import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeServerContract } from '../testing-support/server-contract.js';
import { runServerToExit, startServerProcess } from '../testing-support/server-process.js';
import { writeTestKeysFile } from '../testing-support/test-keys.js';

const dir = mkdtempSync(join(tmpdir(), 'pc-server-pglite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeServerContract('embedded PGlite', {
  start: () =>
    startServerProcess({
      args: ['--data-dir', join(dir, 'data'), '--api-keys-file', writeTestKeysFile(dir)],
      env: { POWERCONTEXT_SERVER_BODY_LIMIT_BYTES: '65536' },
    }),
});

describe.concurrent('powercontext server run: configuration errors', () => {
  it.each([
    [['--host', '0.0.0.0'], {}, 'POWERCONTEXT_SERVER_HOST: is 0.0.0.0, but without API keys'],
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
  ])('exits 1 with the error for %j %j, printing nothing on stdout', async (args, env, message) => {
    const { code, stdout, stderr } = await runServerToExit({ args, env });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain(`configuration_error: ${message}`);
  });

  it('exits 2 with the usage for an unknown flag', async () => {
    const { code, stderr } = await runServerToExit({ args: ['--colour', 'blue'] });
    expect(code).toBe(2);
    expect(stderr).toContain('unknown flag --colour');
    expect(stderr).toContain('Usage: powercontext server run');
  });
});
