import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The built command line; `pnpm test` builds it first. Runs on Node 20, 22 and 24 (test:node-versions).
const BIN = fileURLToPath(new URL('../dist/bin/powercontext.js', import.meta.url));

/** The V8 and Node flags of the process that ran `powercontext ...args`, printed by a module hook at its exit. */
function flagsOfRun(args: string[]): { status: number | null; execArgv: string[][] } {
  const report = `data:text/javascript,${encodeURIComponent(
    'process.on("exit", () => process.stderr.write("execArgv " + JSON.stringify(process.execArgv) + "\\n"));',
  )}`;
  const result = spawnSync(process.execPath, ['--import', report, BIN, ...args], {
    env: { PATH: process.env.PATH ?? '' },
    encoding: 'utf8',
  });
  const execArgv = result.stderr
    .split('\n')
    .filter((line) => line.startsWith('execArgv '))
    .map((line) => JSON.parse(line.slice('execArgv '.length)) as string[]);
  return { status: result.status, execArgv };
}

// Node 24's V8 (13) ignores V8 flags set at run time, so there the command starts again with the flag.
const restartsWithFlag = Number(process.versions.v8.split('.')[0]) >= 13;

describe('WebAssembly compiled by the baseline compiler only, for the short-lived commands (rfcs/0001, "Start-up")', () => {
  it.each([
    [
      ['memory', 'search', '--help'],
      ['--liftoff-only', '--wasm-lazy-validation', '--max-opt=1'],
    ],
    [
      ['mcp', '--help'],
      ['--liftoff-only', '--wasm-lazy-validation'],
    ],
  ])('%j starts with %j', (args, flags) => {
    const { status, execArgv } = flagsOfRun(args);
    expect(status).toBe(0);
    expect(execArgv).toHaveLength(1); // one process reached its exit: the first was replaced, not left behind
    const v8Flags = execArgv[0]!.filter((flag) => flag !== '--import' && !flag.startsWith('data:'));
    // On V8 13 the flags are on the command line of the restarted process, once each; before, V8 takes them at run time.
    expect(v8Flags).toEqual(restartsWithFlag ? flags : []);
    expect(execArgv[0]).toContain('--import'); // the caller's own flags are kept
  });

  it('leaves server run on the optimising compiler', () => {
    const { status, execArgv } = flagsOfRun(['server', 'run', '--help']);
    expect(status).toBe(0);
    expect(execArgv).toEqual([['--import', expect.any(String)]]);
  });
});
