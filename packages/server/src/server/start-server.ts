import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer, getRequestListener } from '@hono/node-server';
import { loadTokenizer } from '@powercontext/context-assembly';
import { createRuntime, type Runtime } from '@powercontext/runtime';
import type { Logger as PinoLogger } from 'pino';
import { KeyAdmission, type RateLimitStore } from '../auth/key-admission.js';
import { RateLimiter } from '../auth/rate-limiter.js';
import { SearchLanes } from '../auth/search-lanes.js';
import { LONG_LIVED_POOL } from '../embedded-pool.js';
import type { McpHttpHandler } from '../http/app-env.js';
import { createApp } from '../http/create-app.js';
import { toRuntimeLogger } from '../logging/create-logger.js';
import { ServerMetrics } from '../metrics/metrics.js';
import type { BoundPort } from './bound-port.js';
import type { ServerConfig } from './server-config.js';

export interface StartServerOptions {
  logger: PinoLogger;
  mcp?: McpHttpHandler;
  /** Opens the runtime; defaults to createRuntime with the configuration. Tests inject their own. */
  openRuntime?: (config: ServerConfig, logger: PinoLogger) => Promise<Runtime>;
  /** The configured port, bound already (`bindPort`); without it the server binds it itself. */
  bound?: BoundPort;
}

export interface RunningServer {
  /** `http://HOST:PORT` with the port actually bound. */
  url: string;
  /**
   * Graceful shutdown: stops accepting connections, lets in-flight requests finish (up to the
   * shutdown timeout, then cuts the remaining connections), and closes the runtime.
   */
  close(): Promise<void>;
}

/**
 * Binds the port first, unless it is bound already (so /healthz answers and memory routes say not_ready while the store opens),
 * then opens the runtime. Resolves once requests can be served.
 */
export async function startServer(config: ServerConfig, options: StartServerOptions): Promise<RunningServer> {
  const { logger } = options;
  let runtime: Runtime | undefined;
  let accepting = true;
  const metrics = new ServerMetrics();
  const inProcess = new RateLimiter();
  // With POWERCONTEXT_SERVER_RATE_LIMIT_STORE=postgres, every process on the database spends one
  // budget per key; until the runtime is open no request is admitted anyway (not_ready).
  const limits: RateLimitStore =
    config.rateLimitStore === 'postgres'
      ? {
          take: (keyId, limit) => {
            const shared = runtime?.sharedRateLimits;
            return shared ? shared.take(keyId, limit) : inProcess.take(keyId, limit);
          },
        }
      : inProcess;
  const app = createApp({
    metrics,
    runtime: () => (accepting ? runtime : undefined),
    auth: config.auth,
    logger,
    bodyLimitBytes: config.bodyLimitBytes,
    requestTimeoutMs: config.requestTimeoutMs,
    admission: new KeyAdmission(limits, new SearchLanes(config.maxConcurrentSearches)),
    origins: { loopbackOnly: config.auth.kind === 'local', allowedOrigins: config.allowedOrigins },
    ...(options.mcp ? { mcp: options.mcp } : {}),
    ui: config.ui,
  });
  let server: Server;
  if (options.bound) {
    server = options.bound.server;
    options.bound.serve(getRequestListener(app.fetch));
  } else {
    server = createAdaptorServer({ fetch: app.fetch }) as Server;
    await listen(server, config.port, config.host);
  }
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;

  try {
    const open =
      options.openRuntime ??
      ((current, log) =>
        createRuntime({
          config: current.runtime,
          // The same pool as the open begun ahead (run-server-command.ts), which this open then takes.
          pgliteSharedBuffers: LONG_LIVED_POOL,
          logger: toRuntimeLogger(log),
          additionalObserver: metrics.observer,
          onRead: (target) => metrics.read(target),
        }));
    runtime = await open(config, logger);
  } catch (error) {
    await closeServer(server, 0);
    throw error;
  }
  // Load the default tokenizer now, in the background (it yields as it goes), so that its 200,000-entry
  // table and the garbage collection it causes are not paid inside some tenant's first preparation.
  loadTokenizer('o200k_base').catch((error: unknown) =>
    logger.warn({ event: 'server.tokenizer_preload_failed', error_name: (error as Error).name }),
  );
  if (config.auth.kind === 'local') {
    logger.warn({
      event: 'server.no_api_keys',
      message: `No API keys configured: every request runs with full access, so the server binds to ${config.host} (loopback) only. Set POWERCONTEXT_SERVER_API_KEYS_FILE to require keys.`,
    });
  }
  logger.info({
    event: 'server.ready',
    url,
    store: runtime.capabilities().store,
    auth: config.auth.kind === 'keys' ? `${config.auth.keys.length} API keys` : 'none (loopback only)',
    inspector: config.ui ? `${url}/ui/` : 'off',
  });

  let closing: Promise<void> | undefined;
  return {
    url,
    close: () => {
      closing ??= (async () => {
        accepting = false;
        logger.info({ event: 'server.shutdown.started' });
        await closeServer(server, config.shutdownTimeoutMs);
        await runtime?.close();
        logger.info({ event: 'server.shutdown.finished' });
      })();
      return closing;
    },
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Stops accepting, closes idle keep-alive connections, and waits for the busy ones up to `graceMs`. */
function closeServer(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    // Connections that finish a request while closing become idle; close them as they do.
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    server.close(() => {
      clearTimeout(force);
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}
