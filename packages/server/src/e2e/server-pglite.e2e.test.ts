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

describe('powercontext server run: configuration errors', () => {
  it('exits 1 with the configuration error on stderr and prints nothing on stdout', async () => {
    const { code, stdout, stderr } = await runServerToExit({ args: ['--host', '0.0.0.0'] });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain(
      'powercontext server: configuration_error: POWERCONTEXT_SERVER_HOST: is 0.0.0.0, but without API keys',
    );
  });
});
