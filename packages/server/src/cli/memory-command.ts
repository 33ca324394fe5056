import type { Runtime } from '@powercontext/runtime';
import { checkImportFile } from './import-args.js';
import { type MemoryArgs, MemoryArgsError, memoryCommandUsage, parseMemoryArgs } from './memory-args.js';
import { openRuntime, prestartStore } from './runtime-flags.js';

export interface MemoryCommandOptions {
  /** The environment to configure the runtime from; default `process.env`. */
  env?: Record<string, string | undefined>;
  /** An open runtime to use instead of opening one (it is left open). */
  runtime?: Runtime;
}

/**
 * `powercontext memory <command>`: the Memory operations over the runtime, in process. Prints text
 * for people or, with --json, the HTTP v1 JSON bodies. Exit codes: 0 done, 1 the operation failed,
 * 2 bad arguments or input that breaks a rule (the message names the flag and the rule).
 */
export async function runMemoryCommand(argv: string[], options: MemoryCommandOptions = {}): Promise<number> {
  // Every flag is parsed and checked here, before any store is opened.
  let args: ReturnType<typeof parseMemoryArgs>;
  try {
    args = parseMemoryArgs(argv);
  } catch (error) {
    if (!(error instanceof MemoryArgsError)) throw error;
    console.error(`${error.message}\n\n${error.usage}`);
    return 2;
  }
  if ('help' in args) {
    (args.exitCode === 0 ? console.log : console.error)(args.help);
    return args.exitCode;
  }
  if (args.command === 'import') {
    // Like a bad flag: the file is checked before any store opens.
    try {
      await checkImportFile(args.file);
    } catch (error) {
      console.error(`${(error as Error).message}\n\n${memoryCommandUsage('import')}`);
      return 2;
    }
  }
  let runtime = options.runtime;
  if (!runtime) await prestartStore(args.store, options.env, sharedBuffersFor(args.command));
  // The operations' modules load alongside the runtime's.
  const operations = import('./memory-operations.js');
  operations.catch(() => {}); // awaited below, unless the runtime fails to open first
  if (!runtime) {
    const opened = await openRuntime(args.store, options.env, sharedBuffersFor(args.command));
    if ('failure' in opened) {
      console.error(`powercontext memory: ${opened.failure}`);
      return 1;
    }
    runtime = opened.runtime;
  }
  const { execute, reportFailure } = await operations;
  try {
    const { json, text } = await execute(runtime, args);
    // An export's stdout holds the entries alone: its summary goes to stderr.
    const print = args.command === 'export' ? console.error : console.log;
    print(args.json ? JSON.stringify(json, null, 2) : text);
    return 0;
  } catch (error) {
    return reportFailure(error, args);
  } finally {
    if (!options.runtime) await runtime.close();
  }
}

/**
 * A memory command runs one operation on a cold buffer pool and exits, so the embedded store opens with
 * a small one: PGlite zeroes the whole pool at every start, and on a 2-core machine touching new memory
 * costs about 3 ms a megabyte. `memory search`, nine interleaved runs each (rfcs/0001, "Start-up"):
 * 1.09, 1.05, 1.01 and 1.02 s with 16, 8, 4 and 2 MB on 1,000 entries, and 1.20, 1.17, 1.14 and 1.12 s
 * on 10,000, where the pool is smaller than what the search reads. The bulk writes (import, reembed)
 * keep the cluster's pool, 128 MB (named: `createRuntime`'s own default is `fit`).
 */
function sharedBuffersFor(command: MemoryArgs['command']): { pgliteSharedBuffers: string } {
  return { pgliteSharedBuffers: command === 'import' || command === 'reembed' ? '128MB' : '4MB' };
}
