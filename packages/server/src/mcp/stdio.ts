import { ArgsError, parseCommandLine, readFlags } from '@powercontext/cli-support';
import {
  isStoreFlag,
  openRuntime,
  prestartStore,
  STORE_FLAGS,
  STORE_FLAGS_USAGE,
  type StoreOverrides,
} from '../cli/runtime-flags.js';
import { LONG_LIVED_POOL } from '../embedded-pool.js';

/**
 * The tools this command serves, named in its help. Spelled out rather than read from the runtime's
 * MODEL_CALLABLE_TOOLS: --help answers before the runtime's module graph loads (contract-tools.test.ts
 * checks that the two lists agree).
 */
export const MCP_TOOL_NAMES = [
  'search_memory',
  'prepare_context',
  'remember_memory',
  'list_memory_entries',
  'get_memory_entry',
  'revise_memory_entry',
  'forget_memory_entry',
  'reactivate_memory_entry',
  'purge_memory_entry',
  'list_memory_changes',
  'delete_scope',
  'list_scopes',
] as const;

export const MCP_USAGE = `Usage: powercontext mcp [options]

Serves the memory tools over MCP on stdin and stdout, for a client that starts this process:
${MCP_TOOL_NAMES.join(', ')}.
It runs as the local user: every scope, every permission (purge included). Stdout carries only the
protocol; messages go to stderr. Configuration comes from the POWERCONTEXT_SERVER_* environment.

Options:
${STORE_FLAGS_USAGE}
  --help                print this help`;

function parseMcpArgs(argv: readonly string[]): StoreOverrides | 'help' {
  const flags = readFlags(argv, { values: Object.keys(STORE_FLAGS) });
  if (flags === 'help') return 'help';
  const overrides: StoreOverrides = {};
  for (const { flag, value } of flags) {
    if (!isStoreFlag(flag)) throw new ArgsError(`unknown flag ${flag}`);
    overrides[flag] = value;
  }
  return overrides;
}

/**
 * `powercontext mcp`: an MCP server on stdio over a runtime from the environment. Returns the exit
 * code once the client closes stdin or the process is asked to stop (SIGINT, SIGTERM).
 */
export async function runMcpStdio(argv: string[]): Promise<number> {
  const overrides = parseCommandLine(parseMcpArgs, MCP_USAGE, argv);
  if (typeof overrides === 'number') return overrides;
  await prestartStore(overrides, process.env, { pgliteSharedBuffers: LONG_LIVED_POOL });
  // The MCP SDK and the tools load once the arguments are checked, while the store's thread starts.
  const [{ StdioServerTransport }, { LOCAL_PRINCIPAL }, { createMemoryMcpServer }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('../auth/principal.js'),
    import('./memory-tools.js'),
  ]);
  const opened = await openRuntime(overrides, process.env, { pgliteSharedBuffers: LONG_LIVED_POOL });
  if ('failure' in opened) {
    console.error(`powercontext mcp: ${opened.failure}`);
    return 1;
  }
  const { runtime } = opened;
  const server = createMemoryMcpServer({
    runtime,
    principal: LOCAL_PRINCIPAL,
    onInternalError: (error, tool) => console.error(`powercontext mcp: ${tool} failed:`, error),
  });
  let stop = () => {};
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  const events = [
    [process.stdin, 'end'],
    [process.stdin, 'close'],
    [process, 'SIGINT'],
    [process, 'SIGTERM'],
  ] as const;
  for (const [emitter, event] of events) emitter.once(event, stop);
  try {
    await server.connect(new StdioServerTransport());
    await stopped;
    return 0;
  } finally {
    for (const [emitter, event] of events) emitter.off(event, stop);
    await server.close();
    await runtime.close();
  }
}
