import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeServerContract } from '../testing-support/server-contract.js';
import { type ServerProcess, startServerProcess } from '../testing-support/server-process.js';
import { startTcpProxy, type TcpProxy } from '../testing-support/tcp-proxy.js';
import { createTestDatabase, type TestDatabase } from '../testing-support/test-database.js';
import { secretOf, writeTestKeysFile } from '../testing-support/test-keys.js';
import type { RememberResponse } from '../testing-support/wire-types.js';

const dir = mkdtempSync(join(tmpdir(), 'pc-server-postgres-'));
const keysFile = writeTestKeysFile(dir);
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describeServerContract('PostgreSQL', {
  start: () =>
    startServerProcess({
      args: ['--database-url', database.connectionString, '--api-keys-file', keysFile],
      env: { POWERCONTEXT_SERVER_BODY_LIMIT_BYTES: '65536' },
    }),
});

describe('PostgreSQL: two server processes on one database, then the database goes away', () => {
  const KEY = secretOf('alpha-all');
  let own: TestDatabase;
  let proxy: TcpProxy;
  let first: ServerProcess;
  let second: ServerProcess;

  beforeAll(async () => {
    own = await createTestDatabase();
    const direct = new URL(own.connectionString);
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    const proxied = new URL(own.connectionString);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    // One attempt per write, so a lost compare-and-swap reaches the client instead of being retried.
    const start = (url: string) =>
      startServerProcess({
        args: ['--database-url', url, '--api-keys-file', keysFile],
        env: { POWERCONTEXT_SERVER_RUNTIME_MEMORY_WRITE_MAX_ATTEMPTS: '1' },
      });
    // The first server reaches the database through a proxy the last test takes away. One after the
    // other: the first one migrates the new database.
    first = await start(proxied.toString());
    second = await start(own.connectionString);
  });
  afterAll(async () => {
    await Promise.all([first?.stop(), second?.stop(), proxy?.close()]);
    await own?.drop();
  });

  it('answers 409 revision_conflict (retryable) when another process moved the scope, and loses nothing', async () => {
    const conflicts: { status: number; json: unknown }[] = [];
    let written = 0;
    for (let round = 0; round < 20 && conflicts.length === 0; round++) {
      const writes = Array.from({ length: 8 }, (_, index) =>
        (index % 2 === 0 ? first : second).call<RememberResponse>(
          '/v1/memory/remember',
          { scope_id: 'alpha', entries: [{ text: `round ${round} writer ${index}` }] },
          { key: KEY },
        ),
      );
      for (const response of await Promise.all(writes)) {
        if (response.status === 200) written += 1;
        else conflicts.push(response);
      }
    }
    expect(conflicts.length).toBeGreaterThan(0);
    for (const conflict of conflicts) {
      expect(conflict).toMatchObject({
        status: 409,
        json: { error: { code: 'revision_conflict', retryable: true } },
      });
    }
    const changes = await first.call<{ memory: { revision: number } }>(
      '/v1/memory/changes',
      { scope_id: 'alpha' },
      { key: KEY },
    );
    // Every successful write made exactly one revision; no failed one left a trace.
    expect(changes.json.memory.revision).toBe(written);
  });

  it('answers 503 database_unavailable (retryable, Retry-After) when the database cannot be reached', async () => {
    await proxy.close();
    // Connections cut in mid-use must not take the process down: every request gets the error.
    for (let attempt = 0; attempt < 3; attempt++) {
      const response = await first.call('/v1/memory/entries/list', { scope_id: 'alpha' }, { key: KEY });
      expect(response.status).toBe(503);
      expect(response.json.error).toMatchObject({ code: 'database_unavailable', retryable: true });
      expect(response.headers.get('retry-after')).toBe('1');
    }
    expect((await first.call('/healthz')).status).toBe(200);
  });
});

describe('PostgreSQL: a server without API keys', () => {
  let own: TestDatabase;
  let server: ServerProcess;

  beforeAll(async () => {
    own = await createTestDatabase();
    server = await startServerProcess({
      args: ['--database-url', own.connectionString],
      env: { POWERCONTEXT_SERVER_LOG_LEVEL: 'info' },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await own?.drop();
  });

  it('binds to loopback, says so at start-up, and serves requests without a key', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/u);
    expect(server.stdout()).toBe(`listening on ${server.url}\n`);
    // stdout and stderr are two pipes: the warning, written first, may still be on its way.
    await expect.poll(() => server.stderr()).toContain('No API keys configured');
    const written = await server.call('/v1/memory/remember', {
      scope_id: 'any',
      entries: [{ text: 'local note' }],
    });
    expect(written.status).toBe(200);
    const explained = await server.call('/v1/memory/search', {
      scope_id: 'any',
      query: 'note',
      explain: 'redacted',
    });
    expect(explained.status).toBe(200);
  });

  it('logs every request as JSON on stderr with its request id, never the memory text', async () => {
    await server.call(
      '/v1/memory/remember',
      { scope_id: 'any', entries: [{ text: 'confidential payroll figures' }] },
      {
        headers: { 'x-request-id': 'log-check-1' },
      },
    );
    await expect.poll(() => server.stderr()).toContain('log-check-1');
    const lines = server
      .stderr()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toContainEqual(
      expect.objectContaining({
        event: 'http.request',
        request_id: 'log-check-1',
        status: 200,
        key_id: 'local',
      }),
    );
    expect(server.stderr()).not.toContain('payroll');
  });
});
