import { readFileSync } from 'node:fs';
// The runtime's configuration alone (not the runtime): `server run` checks its settings before the rest loads.
import { ConfigurationError, loadRuntimeConfig, type RuntimeConfig } from '@powercontext/runtime/config';
import {
  type ApiKeyRecord,
  ApiKeysError,
  assertDistinctKeys,
  DEFAULT_MAX_IN_FLIGHT,
  parseApiKeys,
} from '../auth/api-keys.js';
import { DEFAULT_SEARCH_LANES } from '../auth/search-lanes.js';
import type { AuthMode } from '../http/app-env.js';
import { isLoopback, parseAllowedOrigins } from '../http/middleware/origin-guard.js';
import { LOG_LEVELS, type LogLevel } from '../logging/create-logger.js';

/** The server's own settings; the runtime's are in CONFIGURATION_TABLE of @powercontext/runtime. */
export const SERVER_SETTINGS = {
  host: 'POWERCONTEXT_SERVER_HOST',
  port: 'POWERCONTEXT_SERVER_PORT',
  apiKeysFile: 'POWERCONTEXT_SERVER_API_KEYS_FILE',
  apiKeys: 'POWERCONTEXT_SERVER_API_KEYS',
  bodyLimitBytes: 'POWERCONTEXT_SERVER_BODY_LIMIT_BYTES',
  requestTimeoutMs: 'POWERCONTEXT_SERVER_REQUEST_TIMEOUT_MS',
  shutdownTimeoutMs: 'POWERCONTEXT_SERVER_SHUTDOWN_TIMEOUT_MS',
  logLevel: 'POWERCONTEXT_SERVER_LOG_LEVEL',
  allowedOrigins: 'POWERCONTEXT_SERVER_ALLOWED_ORIGINS',
  maxInFlightPerKey: 'POWERCONTEXT_SERVER_MAX_IN_FLIGHT_PER_KEY',
  maxConcurrentSearches: 'POWERCONTEXT_SERVER_MAX_CONCURRENT_SEARCHES',
  rateLimitStore: 'POWERCONTEXT_SERVER_RATE_LIMIT_STORE',
  ui: 'POWERCONTEXT_SERVER_UI',
} as const;

export const SERVER_DEFAULTS = {
  host: '127.0.0.1',
  port: 7474,
  bodyLimitBytes: 2 * 1024 * 1024,
  requestTimeoutMs: 120_000,
  shutdownTimeoutMs: 30_000,
  logLevel: 'info' as LogLevel,
  maxInFlightPerKey: DEFAULT_MAX_IN_FLIGHT,
  maxConcurrentSearches: DEFAULT_SEARCH_LANES,
  rateLimitStore: 'memory' as 'memory' | 'postgres',
};

/** Command-line flags; each overrides the environment variable of the same name. */
export interface ServerFlags {
  host?: string;
  port?: string;
  dataDir?: string;
  databaseUrl?: string;
  apiKeysFile?: string;
}

export interface ServerConfig {
  host: string;
  port: number;
  auth: AuthMode;
  bodyLimitBytes: number;
  requestTimeoutMs: number;
  shutdownTimeoutMs: number;
  logLevel: LogLevel;
  /** Keyed mode: foreign page origins allowed to call with a key (CORS, no credentials). */
  allowedOrigins: ReadonlySet<string>;
  /** Where per-key rate limits are kept: this process (memory) or the PostgreSQL database, shared. */
  rateLimitStore: 'memory' | 'postgres';
  /** Searches and context preparations run at once by this process (its search lanes); the rest wait. */
  maxConcurrentSearches: number;
  /** Whether `/ui` serves the memory inspector (default: on for a loopback host, off otherwise). */
  ui: boolean;
  runtime: RuntimeConfig;
}

/**
 * Reads the server's configuration once, at start-up: environment first, flags over it. Throws a
 * ConfigurationError naming the setting and the rule; nothing invalid is replaced by a default.
 */
export function loadServerConfig(
  env: Record<string, string | undefined>,
  flags: ServerFlags = {},
): ServerConfig {
  const value = (name: string, flag?: string) => {
    const given = flag ?? env[name];
    return given === undefined || given === '' ? undefined : given;
  };
  const host = value(SERVER_SETTINGS.host, flags.host) ?? SERVER_DEFAULTS.host;
  if (!/^[A-Za-z0-9.:_-]+$/u.test(host)) {
    throw new ConfigurationError(SERVER_SETTINGS.host, 'must be a host name or an IP address');
  }
  const port = integer(SERVER_SETTINGS.port, value(SERVER_SETTINGS.port, flags.port), 0, 65_535);
  const runtimeEnv = {
    ...env,
    ...(flags.dataDir === undefined ? {} : { POWERCONTEXT_SERVER_DATA_DIR: flags.dataDir }),
    ...(flags.databaseUrl === undefined ? {} : { POWERCONTEXT_SERVER_DATABASE_URL: flags.databaseUrl }),
  };
  const maxInFlight =
    integer(SERVER_SETTINGS.maxInFlightPerKey, value(SERVER_SETTINGS.maxInFlightPerKey), 1, 1_000) ??
    SERVER_DEFAULTS.maxInFlightPerKey;
  const keys = loadKeys(
    value(SERVER_SETTINGS.apiKeysFile, flags.apiKeysFile),
    value(SERVER_SETTINGS.apiKeys),
    maxInFlight,
  );
  const origins = parseAllowedOrigins(value(SERVER_SETTINGS.allowedOrigins));
  if (origins.invalid !== undefined) {
    throw new ConfigurationError(
      SERVER_SETTINGS.allowedOrigins,
      `must be comma-separated origins like https://app.example.com; ${JSON.stringify(origins.invalid)} is not one`,
    );
  }
  if (keys.length === 0 && origins.origins.size > 0) {
    throw new ConfigurationError(
      SERVER_SETTINGS.allowedOrigins,
      'applies only with API keys; without keys only loopback pages may call the server',
    );
  }
  if (keys.length === 0 && !isLoopback(host)) {
    throw new ConfigurationError(
      SERVER_SETTINGS.host,
      `is ${host}, but without API keys the server may bind only to a loopback address (127.0.0.1, ::1 or localhost); configure keys with ${SERVER_SETTINGS.apiKeysFile}`,
    );
  }
  const logLevel = value(SERVER_SETTINGS.logLevel) ?? SERVER_DEFAULTS.logLevel;
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigurationError(SERVER_SETTINGS.logLevel, `must be one of ${LOG_LEVELS.join(', ')}`);
  }
  const requestTimeoutMs =
    integer(SERVER_SETTINGS.requestTimeoutMs, value(SERVER_SETTINGS.requestTimeoutMs), 100, 3_600_000) ??
    SERVER_DEFAULTS.requestTimeoutMs;
  const runtime = loadRuntimeConfig(runtimeEnv);
  if (runtime.store.kind === 'postgres' && runtime.store.statementTimeoutMs === undefined) {
    // 5 s under the request timeout, so a database that hangs is answered 503 database_unavailable
    // by the store before the request timeout answers request_timeout. A request timeout under 10 s
    // answers first anyway; the statement bound then only frees the connection 5 s after it.
    runtime.store.statementTimeoutMs =
      requestTimeoutMs >= 10_000 ? requestTimeoutMs - 5_000 : requestTimeoutMs + 5_000;
  }
  const rateLimitStore = value(SERVER_SETTINGS.rateLimitStore) ?? SERVER_DEFAULTS.rateLimitStore;
  if (rateLimitStore !== 'memory' && rateLimitStore !== 'postgres') {
    throw new ConfigurationError(SERVER_SETTINGS.rateLimitStore, 'must be memory or postgres');
  }
  if (rateLimitStore === 'postgres' && runtime.store.kind !== 'postgres') {
    throw new ConfigurationError(
      SERVER_SETTINGS.rateLimitStore,
      'is postgres, which needs POWERCONTEXT_SERVER_DATABASE_URL (the embedded store keeps limits per process)',
    );
  }
  const ui = value(SERVER_SETTINGS.ui)?.trim().toLowerCase();
  if (ui !== undefined && ui !== 'on' && ui !== 'off') {
    throw new ConfigurationError(SERVER_SETTINGS.ui, 'must be on or off');
  }
  return {
    host,
    port: port ?? SERVER_DEFAULTS.port,
    auth: keys.length > 0 ? { kind: 'keys', keys } : { kind: 'local' },
    bodyLimitBytes:
      integer(SERVER_SETTINGS.bodyLimitBytes, value(SERVER_SETTINGS.bodyLimitBytes), 1_024, 1_073_741_824) ??
      SERVER_DEFAULTS.bodyLimitBytes,
    requestTimeoutMs,
    shutdownTimeoutMs:
      integer(SERVER_SETTINGS.shutdownTimeoutMs, value(SERVER_SETTINGS.shutdownTimeoutMs), 0, 3_600_000) ??
      SERVER_DEFAULTS.shutdownTimeoutMs,
    logLevel: logLevel as LogLevel,
    allowedOrigins: origins.origins,
    maxConcurrentSearches:
      integer(
        SERVER_SETTINGS.maxConcurrentSearches,
        value(SERVER_SETTINGS.maxConcurrentSearches),
        1,
        1_000,
      ) ?? SERVER_DEFAULTS.maxConcurrentSearches,
    ui: ui === undefined ? isLoopback(host) : ui === 'on',
    rateLimitStore,
    runtime,
  };
}

function integer(setting: string, raw: string | undefined, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/u.test(raw.trim())) throw new ConfigurationError(setting, 'must be an integer');
  const parsed = Number(raw.trim());
  if (parsed < min || parsed > max)
    throw new ConfigurationError(setting, `must be between ${min} and ${max}`);
  return parsed;
}

function loadKeys(file: string | undefined, inline: string | undefined, maxInFlight: number): ApiKeyRecord[] {
  const keys = [
    ...(file === undefined
      ? []
      : keysFrom(SERVER_SETTINGS.apiKeysFile, file, () => readFileSync(file, 'utf8'), maxInFlight)),
    ...(inline === undefined
      ? []
      : keysFrom(SERVER_SETTINGS.apiKeys, 'the value', () => inline, maxInFlight)),
  ];
  try {
    assertDistinctKeys(keys);
  } catch (error) {
    if (error instanceof ApiKeysError)
      throw new ConfigurationError(SERVER_SETTINGS.apiKeysFile, error.message);
    throw error;
  }
  return keys;
}

/** Parses one keys document; it must list at least one key. */
function keysFrom(setting: string, origin: string, read: () => string, maxInFlight: number): ApiKeyRecord[] {
  let text: string;
  try {
    text = read();
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigurationError(setting, `cannot read ${origin} (${reason})`);
  }
  try {
    const keys = parseApiKeys(text, origin, maxInFlight);
    if (keys.length === 0) throw new ApiKeysError(`${origin}: keys must list at least one key`);
    return keys;
  } catch (error) {
    if (error instanceof ApiKeysError) throw new ConfigurationError(setting, error.message);
    throw error;
  }
}

export { isLoopback };
