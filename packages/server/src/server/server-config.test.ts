import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../auth/api-keys.js';
import { isLoopback, loadServerConfig, SERVER_DEFAULTS, SERVER_SETTINGS } from './server-config.js';

const dir = mkdtempSync(join(tmpdir(), 'pc-server-config-'));
const keysFile = join(dir, 'keys.json');
writeFileSync(
  keysFile,
  JSON.stringify({ keys: [{ id: 'a', sha256: hashApiKey('k'), scopes: '*', permissions: ['read'] }] }),
);

describe('loadServerConfig', () => {
  it('defaults to 127.0.0.1:7474, the embedded store and no keys', () => {
    const config = loadServerConfig({});
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 7474,
      auth: { kind: 'local' },
      bodyLimitBytes: 2 * 1024 * 1024,
      requestTimeoutMs: 120_000,
      logLevel: 'info',
    });
    expect(config.runtime.store).toEqual({ kind: 'pglite', dataDir: './.powercontext/data' });
  });

  it('bounds database statements 5 s under the request timeout unless set, and keeps rate limits per process by default', () => {
    const url = 'postgres://db/memory';
    const statementTimeout = (env: Record<string, string>) => {
      const store = loadServerConfig({ POWERCONTEXT_SERVER_DATABASE_URL: url, ...env }).runtime.store;
      return store.kind === 'postgres' ? store.statementTimeoutMs : undefined;
    };
    expect(statementTimeout({})).toBe(115_000);
    expect(statementTimeout({ POWERCONTEXT_SERVER_REQUEST_TIMEOUT_MS: '30000' })).toBe(25_000);
    expect(statementTimeout({ POWERCONTEXT_SERVER_REQUEST_TIMEOUT_MS: '2000' })).toBe(7_000);
    expect(statementTimeout({ POWERCONTEXT_SERVER_DATABASE_STATEMENT_TIMEOUT_MS: '1500' })).toBe(1_500);
    expect(loadServerConfig({}).rateLimitStore).toBe('memory');
    expect(
      loadServerConfig({
        POWERCONTEXT_SERVER_DATABASE_URL: url,
        POWERCONTEXT_SERVER_RATE_LIMIT_STORE: 'postgres',
      }).rateLimitStore,
    ).toBe('postgres');
    expect(() => loadServerConfig({ POWERCONTEXT_SERVER_RATE_LIMIT_STORE: 'postgres' })).toThrow(
      /POWERCONTEXT_SERVER_RATE_LIMIT_STORE: is postgres, which needs POWERCONTEXT_SERVER_DATABASE_URL/u,
    );
    expect(() => loadServerConfig({ POWERCONTEXT_SERVER_RATE_LIMIT_STORE: 'redis' })).toThrow(
      /POWERCONTEXT_SERVER_RATE_LIMIT_STORE: must be memory or postgres/u,
    );
  });

  it('lets flags override the environment variables of the same names', () => {
    const env = {
      POWERCONTEXT_SERVER_HOST: '0.0.0.0',
      POWERCONTEXT_SERVER_PORT: '9000',
      POWERCONTEXT_SERVER_DATA_DIR: '/env/data',
      POWERCONTEXT_SERVER_API_KEYS_FILE: join(dir, 'missing.json'),
    };
    const config = loadServerConfig(env, {
      host: '127.0.0.2',
      port: '0',
      dataDir: '/flag/data',
      apiKeysFile: keysFile,
    });
    expect(config).toMatchObject({ host: '127.0.0.2', port: 0, auth: { kind: 'keys' } });
    expect(config.runtime.store).toEqual({ kind: 'pglite', dataDir: '/flag/data' });
    const withUrl = loadServerConfig({}, { databaseUrl: 'postgres://db/x' });
    expect(withUrl.runtime.store.kind).toBe('postgres');
  });

  it('reads keys from the file and from POWERCONTEXT_SERVER_API_KEYS together', () => {
    const inline = JSON.stringify({
      keys: [{ id: 'b', sha256: hashApiKey('other'), scopes: ['x'], permissions: ['write'] }],
    });
    const config = loadServerConfig({
      POWERCONTEXT_SERVER_API_KEYS_FILE: keysFile,
      POWERCONTEXT_SERVER_API_KEYS: inline,
      POWERCONTEXT_SERVER_HOST: '0.0.0.0',
    });
    expect(config.auth.kind === 'keys' && config.auth.keys.map((key) => key.keyId)).toEqual(['a', 'b']);
  });

  it.each([
    [{ POWERCONTEXT_SERVER_HOST: '0.0.0.0' }, 'POWERCONTEXT_SERVER_HOST: is 0.0.0.0, but without API keys'],
    [{ POWERCONTEXT_SERVER_HOST: '192.168.1.4' }, 'may bind only to a loopback address'],
    [{ POWERCONTEXT_SERVER_PORT: 'http' }, 'POWERCONTEXT_SERVER_PORT: must be an integer'],
    [{ POWERCONTEXT_SERVER_PORT: '70000' }, 'POWERCONTEXT_SERVER_PORT: must be between 0 and 65535'],
    [{ POWERCONTEXT_SERVER_API_KEYS_FILE: join(dir, 'missing.json') }, 'cannot read'],
    [
      { POWERCONTEXT_SERVER_API_KEYS: '{"keys": []}' },
      'POWERCONTEXT_SERVER_API_KEYS: the value: keys must list at least one key',
    ],
    [{ POWERCONTEXT_SERVER_BODY_LIMIT_BYTES: '10' }, 'POWERCONTEXT_SERVER_BODY_LIMIT_BYTES: must be between'],
    [{ POWERCONTEXT_SERVER_LOG_LEVEL: 'loud' }, 'POWERCONTEXT_SERVER_LOG_LEVEL: must be one of'],
    [{ POWERCONTEXT_SERVER_DATABASE_URL: 'mysql://x' }, 'POWERCONTEXT_SERVER_DATABASE_URL'],
  ])('refuses %o with a configuration error naming the setting', (env, message) => {
    expect(() => loadServerConfig(env)).toThrow(message);
    try {
      loadServerConfig(env);
    } catch (error) {
      expect(error).toMatchObject({ code: 'configuration_error' });
    }
  });

  it('serves the inspector by default on a loopback host only; POWERCONTEXT_SERVER_UI=on|off decides', () => {
    expect(loadServerConfig({}).ui).toBe(true);
    const keyed = { POWERCONTEXT_SERVER_API_KEYS_FILE: keysFile };
    expect(loadServerConfig({ ...keyed, POWERCONTEXT_SERVER_HOST: '0.0.0.0' }).ui).toBe(false);
    expect(
      loadServerConfig({ ...keyed, POWERCONTEXT_SERVER_HOST: '0.0.0.0', POWERCONTEXT_SERVER_UI: 'on' }).ui,
    ).toBe(true);
    expect(loadServerConfig({ POWERCONTEXT_SERVER_UI: 'off' }).ui).toBe(false);
    expect(() => loadServerConfig({ POWERCONTEXT_SERVER_UI: 'yes' })).toThrow(
      'POWERCONTEXT_SERVER_UI: must be on or off',
    );
  });

  it('runs as many searches at once as the cores unless POWERCONTEXT_SERVER_MAX_CONCURRENT_SEARCHES says', () => {
    expect(loadServerConfig({}).maxConcurrentSearches).toBe(Math.max(2, availableParallelism()));
    expect(loadServerConfig({ POWERCONTEXT_SERVER_MAX_CONCURRENT_SEARCHES: '3' }).maxConcurrentSearches).toBe(
      3,
    );
    expect(() => loadServerConfig({ POWERCONTEXT_SERVER_MAX_CONCURRENT_SEARCHES: '0' })).toThrow(
      /POWERCONTEXT_SERVER_MAX_CONCURRENT_SEARCHES: must be between 1 and 1000/u,
    );
  });

  it('knows the loopback addresses', () => {
    expect(['127.0.0.1', '127.1.2.3', '::1', 'localhost'].every(isLoopback)).toBe(true);
    expect(['0.0.0.0', '::', '10.0.0.1', 'example.com', '127.example.com'].some(isLoopback)).toBe(false);
  });

  it('lists every server setting with its default in the README table', () => {
    const readme = readFileSync(new URL('../../../../README.md', import.meta.url), 'utf8');
    const rows = new Map(
      readme
        .split('\n')
        .filter((line) => /^\| .* \| `POWERCONTEXT_SERVER_/u.test(line))
        .map((line) => line.split('|').map((cell) => cell.trim()))
        .map((cells) => [cells[2]!.replaceAll('`', ''), cells[3]!]),
    );
    for (const name of Object.values(SERVER_SETTINGS)) expect(rows.has(name), name).toBe(true);
    expect(rows.get(SERVER_SETTINGS.host)).toBe(SERVER_DEFAULTS.host);
    expect(rows.get(SERVER_SETTINGS.port)).toMatch(new RegExp(`^${SERVER_DEFAULTS.port}\\b`, 'u'));
    expect(rows.get(SERVER_SETTINGS.bodyLimitBytes)).toMatch(
      new RegExp(`^${SERVER_DEFAULTS.bodyLimitBytes}\\b`, 'u'),
    );
    expect(rows.get(SERVER_SETTINGS.requestTimeoutMs)).toMatch(
      new RegExp(`^${SERVER_DEFAULTS.requestTimeoutMs}\\b`, 'u'),
    );
    expect(rows.get(SERVER_SETTINGS.shutdownTimeoutMs)).toMatch(
      new RegExp(`^${SERVER_DEFAULTS.shutdownTimeoutMs}\\b`, 'u'),
    );
    expect(rows.get(SERVER_SETTINGS.logLevel)).toBe(SERVER_DEFAULTS.logLevel);
  });
});
