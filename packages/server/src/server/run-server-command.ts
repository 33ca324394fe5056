import { ArgsError, parseCommandLine, readFlags } from '@powercontext/cli-support';
import type { PowerContextError } from '@powercontext/memory-core';
import { LONG_LIVED_POOL } from '../embedded-pool.js';
import type { BoundPort } from './bound-port.js';
import type { ServerConfig, ServerFlags } from './server-config.js';
import type { RunningServer } from './start-server.js';

export const SERVER_RUN_USAGE = `Usage: powercontext server run [options]

Serves the HTTP v1 API and the MCP endpoint (/mcp). Each flag overrides the environment variable
of the same name; the runtime reads its other POWERCONTEXT_SERVER_* settings from the environment.

  --host HOST            POWERCONTEXT_SERVER_HOST (default 127.0.0.1)
  --port PORT            POWERCONTEXT_SERVER_PORT (default 7474; 0 = any free port)
  --data-dir DIR         POWERCONTEXT_SERVER_DATA_DIR, the embedded store (default ./.powercontext/data)
  --database-url URL     POWERCONTEXT_SERVER_DATABASE_URL, PostgreSQL with pgvector instead
  --api-keys-file FILE   POWERCONTEXT_SERVER_API_KEYS_FILE (without keys: loopback only)
  -h, --help             this text`;

const FLAG_NAMES: Record<string, keyof ServerFlags> = {
  '--host': 'host',
  '--port': 'port',
  '--data-dir': 'dataDir',
  '--database-url': 'databaseUrl',
  '--api-keys-file': 'apiKeysFile',
};

export function parseServerFlags(argv: readonly string[]): ServerFlags | 'help' {
  const flags = readFlags(argv, { values: Object.keys(FLAG_NAMES) });
  if (flags === 'help') return 'help';
  const parsed: ServerFlags = {};
  for (const { flag, value } of flags) {
    const name = FLAG_NAMES[flag];
    if (!name) throw new ArgsError(`unknown flag ${flag}`);
    parsed[name] = value;
  }
  return parsed;
}

/**
 * `powercontext server run`: prints exactly one line, `listening on http://HOST:PORT`, on stdout when
 * ready (logs go to stderr), and shuts down gracefully on SIGTERM or SIGINT. Exit codes: 0 after a
 * clean shutdown, 1 on a configuration or start-up error, 2 on bad arguments.
 */
export async function runServerCommand(
  argv: readonly string[],
  env: Record<string, string | undefined> = process.env,
): Promise<number> {
  const flags = parseCommandLine(parseServerFlags, SERVER_RUN_USAGE, argv);
  if (typeof flags === 'number') return flags;
  // Once the flags are checked, the embedded store's thread starts loading PGlite (it opens nothing)
  // while the server's configuration loads; `bin` has usually started it already.
  const storeUrl = flags.databaseUrl ?? env.POWERCONTEXT_SERVER_DATABASE_URL;
  const prestart = storeUrl === undefined ? await import('@powercontext/runtime/prestart') : undefined;
  prestart?.prestartEmbeddedStore(env);
  const loadRest = () =>
    Promise.all([
      import('../logging/create-logger.js'),
      import('../mcp/http.js'),
      import('./start-server.js'),
    ]);
  // On PostgreSQL nothing opens ahead: the server's modules load alongside its configuration's, as before.
  const rest = prestart ? undefined : loadRest();
  rest?.catch(() => {}); // awaited below, unless the configuration fails first
  const [{ PowerContextError }, { loadServerConfig }, { bindPort }] = await Promise.all([
    import('@powercontext/memory-core'),
    import('./server-config.js'),
    import('./bound-port.js'),
  ]);
  const reportStartError = (error: unknown) => reportError(error, PowerContextError.isInstance);
  let config: ServerConfig;
  let bound: BoundPort;
  try {
    config = loadServerConfig(env, flags);
    bound = await bindPort(config.port, config.host);
  } catch (error) {
    return reportStartError(error);
  }
  // The configuration is valid and the port bound: nothing left can refuse the run before the runtime
  // opens its store, so an existing embedded data directory starts opening now, while the HTTP stack
  // and the runtime load (rfcs/0001, "Start-up"). The listening line still waits for the open runtime.
  await prestart?.openEmbeddedStoreAhead(
    { config: config.runtime },
    { pgliteSharedBuffers: LONG_LIVED_POOL },
  );
  const [{ createLogger }, { handleMcpHttp }, { startServer }] = await (rest ?? loadRest());
  const logger = createLogger(config.logLevel);
  let server: RunningServer;
  try {
    server = await startServer(config, {
      logger,
      bound,
      mcp: (request, context) =>
        handleMcpHttp(request, {
          ...context,
          onInternalError: (error, tool) =>
            logger.error({
              event: 'mcp.tool_failed',
              tool,
              error_name: error instanceof Error ? error.name : typeof error,
            }),
        }),
    });
  } catch (error) {
    await prestart?.closeEmbeddedStoreAhead();
    return reportStartError(error);
  }
  process.stdout.write(`listening on ${server.url}\n`);
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  logger.info({ event: 'server.signal', signal });
  await server.close();
  return 0;
}

function reportError(
  error: unknown,
  isPowerContextError: (error: unknown) => error is PowerContextError,
): number {
  if (isPowerContextError(error)) {
    console.error(`powercontext server: ${error.code}: ${error.message}`);
    return 1;
  }
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
    console.error(`powercontext server: cannot listen: ${(error as Error).message}`);
    return 1;
  }
  throw error;
}
