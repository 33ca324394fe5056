import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RememberResponse, SearchResponse } from '@powercontext/client';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { type HttpResult, send, sleep } from '../testing-support/http.js';
import { writeKeysFile } from '../testing-support/keys.js';
import { createTestDatabase } from '../testing-support/postgres.js';
import { Tally } from '../testing-support/report.js';
import { logLines, type ServerProcess, startServer } from '../testing-support/server-process.js';
import { startStallProxy } from '../testing-support/stall-proxy.js';

/**
 * Scenario 8: more than one server on one database, and a database that hangs (RFC 0005, "More than
 * one server"; issue 16).
 * - Four server processes started at the same instant on a fresh database: every one becomes ready,
 *   and each migration is applied once (by whichever process took the advisory lock first).
 * - A TCP proxy between the server and PostgreSQL stops forwarding without closing: requests answer
 *   503 database_unavailable within the statement timeout plus 1 s, and succeed once it forwards again.
 * - Two processes share a key whose limit is kept in PostgreSQL: together they accept no more than
 *   the one budget (and, as a control, per-process limits accept more).
 */

const reportsDir = inject('reportsDir');
const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function rowsOf<R>(connectionString: string, text: string): Promise<R[]> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return (await client.query(text)).rows as R[];
  } finally {
    await client.end();
  }
}

describe('four server processes started at once on a fresh database', () => {
  const tally = new Tally('8a four servers, one fresh database');
  afterAll(() => tally.save(reportsDir));

  it('all become ready and every migration is applied exactly once', async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const began = performance.now();
    const servers = await Promise.all(
      [0, 1, 2, 3].map(() =>
        startServer({
          args: ['--database-url', database.connectionString],
          env: { POWERCONTEXT_SERVER_LOG_LEVEL: 'info' },
        }),
      ),
    );
    for (const server of servers) cleanups.push(() => server.stop().then(() => {}));
    const readyMs = performance.now() - began;

    for (const server of servers) {
      const ready = tally.record(await send(server.url, '/readyz'));
      expect(ready.status, ready.text).toBe(200);
    }
    const migrations = await rowsOf<{ name: string }>(
      database.connectionString,
      'SELECT name FROM kysely_migration ORDER BY name',
    );
    expect(migrations.length).toBeGreaterThan(0);
    // Every migration the database holds was applied by exactly one process, and each process that
    // applied some says which.
    const applied = servers.flatMap((server) =>
      logLines(server)
        .filter((line) => line.event === 'store.migrations_applied')
        .flatMap((line) => String(line.migrations).split(',')),
    );
    expect(applied.sort()).toEqual(migrations.map((row) => row.name));
    expect(
      servers.filter((server) => logLines(server).some((line) => line.event === 'store.migrations_applied')),
    ).toHaveLength(1);

    // They serve one memory: a write through one is read through every other.
    const written = tally.record(
      await send<RememberResponse>(servers[0]!.url, '/v1/memory/remember', {
        body: { scope_id: 'shared', entries: [{ text: 'four servers share one database' }] },
      }),
    );
    expect(written.status, written.text).toBe(200);
    for (const server of servers.slice(1)) {
      const found = tally.record(
        await send<SearchResponse>(server.url, '/v1/memory/search', {
          body: {
            scope_id: 'shared',
            query: 'four servers database',
            min_revision: written.json.memory.revision,
          },
        }),
      );
      expect(found.status, found.text).toBe(200);
      expect(found.json.hits.map((hit) => hit.text)).toContain('four servers share one database');
    }
    tally.note(
      `4 processes ready ${Math.round(readyMs)} ms after a simultaneous start; ${migrations.length} migrations applied once`,
    );
    for (const server of servers) expect(await server.stop()).toBe(0);
  });
});

describe('a database that stops answering without closing its connections', () => {
  const tally = new Tally('8b database hangs behind a proxy');
  afterAll(() => tally.save(reportsDir));

  const STATEMENT_TIMEOUT_MS = 1_500;

  it('answers 503 database_unavailable within the statement timeout plus 1 s, and recovers', async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const target = new URL(database.connectionString);
    const proxy = await startStallProxy(Number(target.port || 5432), target.hostname);
    cleanups.push(() => proxy.close());
    const viaProxy = new URL(database.connectionString);
    viaProxy.port = String(proxy.port);
    const server: ServerProcess = await startServer({
      args: ['--database-url', viaProxy.toString()],
      env: {
        POWERCONTEXT_SERVER_LOG_LEVEL: 'warn',
        POWERCONTEXT_SERVER_DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
      },
    });
    cleanups.push(() => server.stop().then(() => {}));

    const search = () =>
      send<SearchResponse>(server.url, '/v1/memory/search', {
        body: { scope_id: 'hang', query: 'proxy stall probe' },
        timeoutMs: 30_000,
      });
    const remember = (n: number) =>
      send<RememberResponse>(server.url, '/v1/memory/remember', {
        body: { scope_id: 'hang', entries: [{ text: `proxy stall probe ${n}` }] },
        timeoutMs: 30_000,
      });
    // Warm the pool: several connections open through the proxy before it stalls.
    const warm: HttpResult[] = await Promise.all([remember(0), search(), search(), search()]);
    for (const result of warm) expect(tally.record(result).status, result.text).toBe(200);

    proxy.stall();
    tally.fault();
    const during: HttpResult[] = [];
    for (let round = 0; round < 2; round += 1) {
      const answers: HttpResult[] = await Promise.all([search(), search(), remember(round + 1)]);
      during.push(...answers.map((answer) => tally.record(answer)));
    }
    for (const result of during) {
      expect(result.status, result.text).toBe(503);
      expect(result.json).toMatchObject({ error: { code: 'database_unavailable', retryable: true } });
      expect(result.headers.get('retry-after')).toBe('1');
      expect(result.ms).toBeLessThan(STATEMENT_TIMEOUT_MS + 1_000);
    }
    const ready = tally.record(await send(server.url, '/readyz', { timeoutMs: 30_000 }));
    expect(ready.status).toBe(503);

    proxy.resume();
    let recovered: HttpResult<SearchResponse> | undefined;
    const giveUp = performance.now() + 15_000;
    while (performance.now() < giveUp) {
      recovered = tally.record(await search());
      if (recovered.status === 200) break;
      await sleep(200);
    }
    expect(recovered?.status, recovered?.text).toBe(200);
    // Once recovered, it keeps answering: no connection of the stalled time is left in the pool.
    const after: HttpResult[] = await Promise.all([search(), search(), search(), remember(9), search()]);
    for (const result of after) expect(tally.record(result).status, result.text).toBe(200);
    tally.note(
      `statement timeout ${STATEMENT_TIMEOUT_MS} ms: ${during.length} requests during the stall, slowest answer ${Math.round(Math.max(...during.map((r) => r.ms)))} ms`,
    );
    expect(server.alive()).toBe(true);
  });
});

describe('two server processes sharing a key', () => {
  const tally = new Tally('8c rate limit kept in PostgreSQL');
  afterAll(() => tally.save(reportsDir));

  const LIMIT = { requests: 20, window_seconds: 10 };
  const RUN_MS = 4_000;

  /** Sends as fast as 4 callers per server can for RUN_MS; returns the accepted count and the time. */
  async function hammer(
    servers: ServerProcess[],
    key: string,
  ): Promise<{ accepted: number; seconds: number }> {
    let accepted = 0;
    const began = performance.now();
    const caller = async (server: ServerProcess) => {
      while (performance.now() - began < RUN_MS) {
        const result = tally.record(await send(server.url, '/v1/capabilities', { key }));
        if (result.status === 200) accepted += 1;
        else {
          expect(result.status, result.text).toBe(429);
          expect(result.json).toMatchObject({ error: { code: 'rate_limited' } });
          await sleep(20);
        }
      }
    };
    await Promise.all(
      servers.flatMap((server) => [caller(server), caller(server), caller(server), caller(server)]),
    );
    return { accepted, seconds: (performance.now() - began) / 1000 };
  }

  it('with POWERCONTEXT_SERVER_RATE_LIMIT_STORE=postgres the combined accepted rate stays within the limit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pc-reliability-keys-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const keys = writeKeysFile(dir, [
      { id: 'shared', scopes: '*', permissions: ['read'], rate_limit: LIMIT },
    ]);
    const key = keys.secretOf('shared');
    const budget = (seconds: number) => LIMIT.requests + (LIMIT.requests / LIMIT.window_seconds) * seconds;

    const start = async (store: 'memory' | 'postgres') => {
      const database = await createTestDatabase();
      cleanups.push(() => database.drop());
      const servers = await Promise.all(
        [0, 1].map(() =>
          startServer({
            args: ['--database-url', database.connectionString, '--api-keys-file', keys.file],
            env: { POWERCONTEXT_SERVER_LOG_LEVEL: 'warn', POWERCONTEXT_SERVER_RATE_LIMIT_STORE: store },
          }),
        ),
      );
      for (const server of servers) cleanups.push(() => server.stop().then(() => {}));
      return servers;
    };

    const shared = await hammer(await start('postgres'), key);
    // One bucket for both processes: at most its size plus what refilled during the run (+1 for a
    // token that refilled between the last check of the clock and the end).
    expect(shared.accepted).toBeLessThanOrEqual(Math.floor(budget(shared.seconds)) + 1);
    expect(shared.accepted).toBeGreaterThanOrEqual(LIMIT.requests);

    // The same run with limits per process lets each process spend the whole budget.
    const perProcess = await hammer(await start('memory'), key);
    expect(perProcess.accepted).toBeGreaterThan(Math.floor(budget(perProcess.seconds)) + 1);
    tally.note(
      `limit ${LIMIT.requests}/${LIMIT.window_seconds} s, two processes, ${RUN_MS / 1000} s: ${shared.accepted} accepted with the PostgreSQL bucket (budget ${budget(shared.seconds).toFixed(1)}), ${perProcess.accepted} with per-process buckets`,
    );
  });
});
