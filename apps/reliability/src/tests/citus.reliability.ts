import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RememberResponse, SearchResponse } from '@powercontext/client';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { send } from '../testing-support/http.js';
import { writeKeysFile } from '../testing-support/keys.js';
import { Tally } from '../testing-support/report.js';
import { logLines, type ServerProcess, startServer } from '../testing-support/server-process.js';

/**
 * Scenario 12: the store distributed by scope on Citus (issue 32; RFC 0011, "Sharding with Citus").
 * Runs only with POWERCONTEXT_TEST_CITUS_URL, a Citus coordinator with its workers added (Citus is not
 * packaged for CI; the scenario says so and is skipped without it). In a schema of its own on that
 * coordinator, two server processes start at once with POWERCONTEXT_SERVER_DATABASE_DISTRIBUTION=citus
 * (one distributes, under the migration lock; the other finds it done), then 20 scopes are written and
 * searched concurrently through both, with rate limits kept in the database: every acknowledged write
 * is found by a search through the other process, `/readyz` answers ready, and Citus's own execution
 * counters show that every statement the two processes ran meanwhile ran on one shard (a router
 * query). The plans themselves (EXPLAIN of the statements the store sends) are checked by the store's
 * Citus test, citus.integration.test.ts.
 */

const CITUS_URL = process.env.POWERCONTEXT_TEST_CITUS_URL;
const SCOPES = 20;
const ROUNDS = 5;
const reportsDir = inject('reportsDir');
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function onCoordinator<T>(
  connectionString: string,
  work: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Citus's execution counters of the database (`citus_stat_counters`, Citus 13.1 and later): how many
 * queries ran on one shard and how many on several. They count the sessions that turn
 * `citus.enable_stat_counters` on, as the servers' do here (their database URL sets it).
 */
async function countersOf(connectionString: string): Promise<{ singleShard: number; multiShard: number }> {
  return onCoordinator(connectionString, async (client) => {
    const { rows } = await client.query<{ single: string; multi: string }>(
      `SELECT query_execution_single_shard AS single, query_execution_multi_shard AS multi
       FROM citus_stat_counters WHERE name = current_database()`,
    );
    return { singleShard: Number(rows[0]?.single ?? 0), multiShard: Number(rows[0]?.multi ?? 0) };
  });
}

describe.skipIf(!CITUS_URL)(
  `two servers on a Citus coordinator, tables distributed by scope${CITUS_URL ? '' : ' (skipped: set POWERCONTEXT_TEST_CITUS_URL to a Citus coordinator)'}`,
  () => {
    const tally = new Tally('12 Citus, distributed by scope');
    afterAll(() => tally.save(reportsDir));

    it('distributes once, finds every acknowledged write of 20 scopes, and runs each statement of theirs on one shard', async () => {
      const citusUrl = CITUS_URL!;
      const schema = `pc_rel_${randomUUID().replaceAll('-', '')}`;
      await onCoordinator(citusUrl, async (client) => {
        await client.query('CREATE EXTENSION IF NOT EXISTS vector');
        await client.query('CREATE EXTENSION IF NOT EXISTS unaccent');
        await client.query(`CREATE SCHEMA ${schema}`);
      });
      cleanups.push(() => onCoordinator(citusUrl, (client) => client.query(`DROP SCHEMA ${schema} CASCADE`)));
      const options = `-c search_path=${schema},public -c citus.enable_stat_counters=on`;
      const databaseUrl = `${citusUrl}${citusUrl.includes('?') ? '&' : '?'}options=${encodeURIComponent(options)}`;
      const dir = mkdtempSync(join(tmpdir(), 'pc-reliability-citus-'));
      cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
      const keys = writeKeysFile(dir, [
        {
          id: 'writer',
          scopes: '*',
          permissions: ['read', 'write'],
          rate_limit: { requests: 10_000, window_seconds: 60 },
          max_in_flight: 64,
        },
      ]);
      const key = keys.secretOf('writer');

      const servers: ServerProcess[] = await Promise.all(
        [0, 1].map(() =>
          startServer({
            args: ['--database-url', databaseUrl, '--api-keys-file', keys.file],
            env: {
              POWERCONTEXT_SERVER_LOG_LEVEL: 'info',
              POWERCONTEXT_SERVER_DATABASE_DISTRIBUTION: 'citus',
              POWERCONTEXT_SERVER_RATE_LIMIT_STORE: 'postgres',
            },
          }),
        ),
      );
      for (const server of servers) cleanups.push(() => server.stop());
      // One process distributed the tables; the other found them distributed.
      const distributing = servers.filter((server) =>
        logLines(server).some((line) => line.event === 'store.tables_distributed'),
      );
      expect(distributing).toHaveLength(1);
      for (const server of servers) {
        const ready = tally.record(await send(server.url, '/readyz', { key }));
        expect(ready.status, ready.text).toBe(200);
      }
      const startup = await countersOf(databaseUrl);
      expect(startup.multiShard).toBeGreaterThan(0);
      await onCoordinator(databaseUrl, (client) => client.query('SELECT citus_stat_counters_reset()'));

      // 20 scopes, each written through one process and searched through the other, all at once.
      const scopes = Array.from({ length: SCOPES }, (_, at) => `tenant-${at}`);
      const acknowledged: { scope: string; text: string; revision: number }[] = [];
      await Promise.all(
        scopes.map(async (scope, at) => {
          const writer = servers[at % 2]!;
          const reader = servers[(at + 1) % 2]!;
          for (let round = 0; round < ROUNDS; round++) {
            const text = `shard note ${scope} round ${round} marker${at}x${round}`;
            const written = tally.record(
              await send<RememberResponse>(writer.url, '/v1/memory/remember', {
                key,
                body: { scope_id: scope, entries: [{ text }] },
                timeoutMs: 60_000,
              }),
            );
            expect(written.status, written.text).toBe(200);
            acknowledged.push({ scope, text, revision: written.json.memory.revision });
            const found = tally.record(
              await send<SearchResponse>(reader.url, '/v1/memory/search', {
                key,
                body: {
                  scope_id: scope,
                  query: `marker${at}x${round}`,
                  mode: 'fts',
                  min_revision: written.json.memory.revision,
                },
                timeoutMs: 60_000,
              }),
            );
            expect(found.status, found.text).toBe(200);
            expect(found.json.hits.map((hit) => hit.text)).toContain(text);
          }
        }),
      );
      expect(acknowledged).toHaveLength(SCOPES * ROUNDS);
      // Every acknowledged write, read back at the end through both processes.
      for (const { scope, text } of acknowledged) {
        for (const server of servers) {
          const found = tally.record(
            await send<SearchResponse>(server.url, '/v1/memory/search', {
              key,
              body: { scope_id: scope, query: text.split(' ').at(-1)!, mode: 'hybrid' },
            }),
          );
          expect(found.status, found.text).toBe(200);
          expect(found.json.hits.map((hit) => hit.text)).toContain(text);
        }
      }

      // What Citus counted while the scopes were written and searched: every statement of the two
      // processes ran on one shard (before the reset, the profile's preparation at start read every
      // scope's statistics: the counter sees statements over several shards).
      const counted = await countersOf(databaseUrl);
      expect(counted.multiShard).toBe(0);
      expect(counted.singleShard).toBeGreaterThan(SCOPES * ROUNDS * 4);
      tally.note(
        `2 processes, ${SCOPES} scopes x ${ROUNDS} writes: ${acknowledged.length} acknowledged, all found through both; ` +
          `Citus executions meanwhile: ${counted.singleShard} on one shard, ${counted.multiShard} on several ` +
          `(${startup.multiShard} on several during the start)`,
      );
      for (const server of servers) expect(await server.stop()).toBe(0);
    });
  },
);
