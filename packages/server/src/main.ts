#!/usr/bin/env node
// Each command loads its own modules when it runs (dynamic imports): `memory` never loads the HTTP
// server or the MCP SDK, and --help or a bad argument answers before the runtime and its store load.
import module, { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';

// Node 22.1+ keeps the compiled code of loaded modules on disk between runs (a no-op on Node 20).
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

/**
 * V8 flags for the short-lived commands (rfcs/0001, "Start-up"):
 *
 * - `--liftoff-only`: compile WebAssembly (PGlite's 9 MB PostgreSQL) with V8's baseline compiler only.
 *   By default V8 also optimises it in the background, several CPU-seconds that compete with the
 *   command itself; issue 14 measured a `memory search` on 1,000 entries and `mcp` start-up at about
 *   35-40% less wall time with this flag.
 * - `--wasm-lazy-validation`: a function of that module is checked when it is first compiled, not all
 *   13,000 when the module is: compiling took 95 ms against 129 ms, and a search runs about a fifth of
 *   the functions. The module is PGlite's own, checked by V8 all the same before any function runs.
 * - `--max-opt=1` (`memory` only): JavaScript stays on V8's baseline tiers. A command that exits within
 *   a second spends what the optimising compiler costs and never gets it back (`memory search`: 1.060
 *   and 1.066 s against 1.086 s, median of 13 interleaved runs). `mcp` keeps it: it serves for hours.
 *
 * `server run` keeps V8's defaults: it lives long enough to profit from every tier.
 */
const QUICK_START_FLAGS = {
  memory: ['--liftoff-only', '--wasm-lazy-validation', '--max-opt=1'],
  mcp: ['--liftoff-only', '--wasm-lazy-validation'],
} as const;

/**
 * Node 20 and 22 take the flags at run time. Node 24's V8 (13) no longer does: a flag set here is
 * ignored, and a `memory search` there took 3.1 s against 0.9 s with `--liftoff-only` on the command
 * line, most of it at exit. There the command starts again in this process, with the flags, before it
 * has loaded anything else (`process.execve`, about 0.1 s: one more start of Node).
 */
function preferQuickStart(command: keyof typeof QUICK_START_FLAGS): void {
  const flags = QUICK_START_FLAGS[command];
  if (process.execArgv.includes(flags[0])) return;
  flagsSetAtRunTime = true;
  const { execve } = process as { execve?: (file: string, args: string[]) => never };
  if (Number(process.versions.v8.split('.')[0]) >= 13 && execve && process.platform !== 'win32')
    execve(process.execPath, [process.execPath, ...flags, ...process.execArgv, ...process.argv.slice(1)]);
  for (const flag of flags) setFlagsFromString(flag);
}

/** Whether this process set its quick-start flags with `setFlagsFromString` (the PGlite thread leaves them). */
let flagsSetAtRunTime = false;

/**
 * For the commands that run the store: the embedded store's PGlite thread starts before anything else
 * loads, so that the thread's own start and loading PGlite overlap the command's modules (rfcs/0001,
 * "Start-up"). It opens nothing: the command still checks its flags and its configuration before any
 * data directory is opened, and an unused thread never keeps the process alive. Skipped when the
 * command line names PostgreSQL or asks for help (the command checks the flags properly later).
 */
async function prestartStoreThread(args: readonly string[]): Promise<void> {
  if (args.some((arg) => arg.startsWith('--database-url') || arg === '--help' || arg === '-h')) return;
  (await import('@powercontext/runtime/prestart')).prestartEmbeddedStore(process.env, {
    processSetCompileFlags: flagsSetAtRunTime,
  });
}

// The memory commands are spelled out, not read from MEMORY_SUBCOMMANDS: importing cli/memory-args.js
// here would load its module graph before --help answers (memory-bin.test.ts keeps the two equal).
const USAGE = `Usage: powercontext <command>

  server run          serve the HTTP v1 API and the MCP endpoint
  mcp                 serve MCP over stdio
  memory <command>    remember, search, list, get, revise, forget, reactivate, purge, changes, reembed, import, export, delete-scope

Run a command with --help for its options; --version prints the version.`;

/** The package's own version (the bundle inlines package.json: scripts/bundle-bin.mjs). */
function version(): string {
  return (createRequire(import.meta.url)('../package.json') as { version: string }).version;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'server': {
      if (rest[0] === 'run') await prestartStoreThread(rest);
      const { runServerCommand, SERVER_RUN_USAGE } = await import('./server/run-server-command.js');
      if (rest[0] === 'run') return runServerCommand(rest.slice(1));
      // `server` has one command: its help is `server run`'s, as `memory --help` is the memory commands'.
      if (rest[0] === '--help' || rest[0] === '-h') {
        console.log(SERVER_RUN_USAGE);
        return 0;
      }
      console.error(
        rest[0] === undefined
          ? SERVER_RUN_USAGE
          : `unknown command "server ${rest[0]}"\n\n${SERVER_RUN_USAGE}`,
      );
      return 2;
    }
    case 'mcp':
      preferQuickStart('mcp');
      await prestartStoreThread(rest);
      return (await import('./mcp/stdio.js')).runMcpStdio(rest);
    case 'memory':
      preferQuickStart('memory');
      await prestartStoreThread(rest);
      return (await import('./cli/memory-command.js')).runMemoryCommand(rest);
    case '--help':
    case '-h':
      console.log(USAGE);
      return 0;
    case '--version':
    case '-V':
      console.log(version());
      return 0;
    default:
      console.error(command === undefined ? USAGE : `unknown command "${command}"\n\n${USAGE}`);
      return 2;
  }
}

process.exit(await main(process.argv.slice(2)));
