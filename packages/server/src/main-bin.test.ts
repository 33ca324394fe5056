import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The built command line; `pnpm test` builds it first.
const BIN = fileURLToPath(new URL('../dist/bin/powercontext.js', import.meta.url));
const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

function powercontext(args: string[]) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '' },
    encoding: 'utf8',
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('powercontext (the built bin): version and help', () => {
  it('prints the package version for --version and -V', () => {
    for (const flag of ['--version', '-V']) {
      const result = powercontext([flag]);
      expect(result).toEqual({ code: 0, stdout: `${manifest.version}\n`, stderr: '' });
    }
  });

  it('prints the server help and exits 0 for server --help and server -h, as memory --help does', () => {
    for (const flag of ['--help', '-h']) {
      const result = powercontext(['server', flag]);
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.stdout).toMatch(/^Usage: powercontext server run \[options\]\n/);
    }
    const memory = powercontext(['memory', '--help']);
    expect(memory.code).toBe(0);
    expect(memory.stdout).toMatch(/^Usage: powercontext memory <command>/);
  });

  it('still refuses an unknown server command with exit 2', () => {
    const result = powercontext(['server', 'start']);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe('unknown command "server start"');
  });
});
