import type { RememberResponse, SearchResponse } from '@powercontext/client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type HttpResult, send, sleep } from '../testing-support/http.js';
import { listAll } from '../testing-support/memory-reads.js';
import {
  createTestDatabase,
  type PrivateCluster,
  startPrivateCluster,
  startStreamingReplica,
} from '../testing-support/postgres.js';
import { Tally } from '../testing-support/report.js';
import { type ServerProcess, startServer } from '../testing-support/server-process.js';

/**
 * Scenario 9: read replicas with read-your-writes (RFC 0005, "More than one server"; issue 16).
 * A primary and a streaming replica made here (initdb, `pg_basebackup -R`, ports of their own,
 * removed afterwards), and servers pointed at both:
 * - searches are served by the replica (seen in the replica's pg_stat_activity);
 * - a remember followed by a search with `min_revision` sees the write, 200 rounds running;
 * - with replay paused, such a search waits, then reads the primary (fallback `wait`) or answers 409
 *   revision_not_visible (fallback `error`); without `min_revision` it answers the older revision;
 * - the replica stopped and started under load: no 5xx beyond 503 database_unavailable, no lost write.
 */

const reportsDir = inject('reportsDir');
const READER_APP = 'pc-reliability-replica-reader';
const WAIT_MS = 800;

let primary: PrivateCluster | undefined;
let replica: PrivateCluster | undefined;
const servers: ServerProcess[] = [];
let primaryUrl = '';
let replicaUrl = '';
/** Fallback `wait`: waits for the replica, then reads the primary. */
let waiting: ServerProcess;
/** Fallback `error`: waits for the replica, then answers 409 revision_not_visible. */
let refusing: ServerProcess;

async function query<R>(connectionString: string, text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as R[];
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  primary = await startPrivateCluster();
  const database = await createTestDatabase(primary.adminUrl);
  replica = await startStreamingReplica(primary);
  primaryUrl = database.connectionString;
  const onReplica = new URL(database.connectionString);
  onReplica.port = String(replica.port);
  onReplica.searchParams.set('application_name', READER_APP);
  replicaUrl = onReplica.toString();
  const start = (fallback: 'wait' | 'error') =>
    startServer({
      args: ['--database-url', primaryUrl],
      env: {
        POWERCONTEXT_SERVER_LOG_LEVEL: 'warn',
        POWERCONTEXT_SERVER_READ_DATABASE_URL: replicaUrl,
        POWERCONTEXT_SERVER_READ_MIN_REVISION_WAIT_MS: String(WAIT_MS),
        POWERCONTEXT_SERVER_READ_MIN_REVISION_FALLBACK: fallback,
      },
    });
  waiting = await start('wait');
  servers.push(waiting);
  refusing = await start('error');
  servers.push(refusing);
});

afterAll(async () => {
  for (const server of servers) await server.stop().catch(() => {});
  await replica?.destroy();
  await primary?.destroy();
});

const remember = (server: ServerProcess, scope: string, text: string) =>
  send<RememberResponse>(server.url, '/v1/memory/remember', {
    body: { scope_id: scope, entries: [{ text }] },
  });

const search = (server: ServerProcess, scope: string, queryText: string, minRevision?: number) =>
  send<SearchResponse>(server.url, '/v1/memory/search', {
    body: {
      scope_id: scope,
      query: queryText,
      mode: 'fts',
      ...(minRevision === undefined ? {} : { min_revision: minRevision }),
    },
  });

function metric(text: string, series: string): number {
  const line = text.split('\n').find((row) => row.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe('a primary and a streaming replica', () => {
  const tally = new Tally('9 read replicas');
  afterAll(() => tally.save(reportsDir));

  it('serves searches from the replica', async () => {
    const written = tally.record(
      await remember(waiting, 'replica', 'replicas serve the searches of this scope'),
    );
    expect(written.status, written.text).toBe(200);
    const before = metric(
      (await send(waiting.url, '/metrics')).text,
      'powercontext_reads_total{target="replica"}',
    );
    for (let n = 0; n < 20; n += 1) {
      const found = tally.record(
        await search(waiting, 'replica', 'replicas searches', written.json.memory.revision),
      );
      expect(found.status, found.text).toBe(200);
      expect(found.json.hits.map((hit) => hit.text)).toContain('replicas serve the searches of this scope');
    }
    // Checked before /metrics: its replica lag probe becomes the last statement of that session.
    // The replica's own view: the server's reader connections, and the search statements they ran.
    const sessions = await query<{ query: string }>(
      replica!.adminUrl,
      'SELECT query FROM pg_stat_activity WHERE application_name = $1',
      [READER_APP],
    );
    expect(sessions.length).toBeGreaterThan(0);
    expect(
      sessions.some((session) => /pc_/u.test(session.query)),
      JSON.stringify(sessions),
    ).toBe(true);
    const after = metric(
      (await send(waiting.url, '/metrics')).text,
      'powercontext_reads_total{target="replica"}',
    );
    expect(after - before).toBe(20);
    const ready = tally.record(
      await send<{ replicas: { lag_seconds: number | null; down: boolean }[] }>(waiting.url, '/readyz'),
    );
    expect(ready.status, ready.text).toBe(200);
    expect(ready.json.replicas).toHaveLength(1);
    expect(ready.json.replicas[0]).toMatchObject({ down: false });
    expect(typeof ready.json.replicas[0]!.lag_seconds).toBe('number');
  });

  it('a search with min_revision sees the write before it, 200 rounds running', async () => {
    const rounds = 200;
    const began = performance.now();
    let fromReplica = 0;
    const readsBefore = metric(
      (await send(waiting.url, '/metrics')).text,
      'powercontext_reads_total{target="replica"}',
    );
    for (let n = 0; n < rounds; n += 1) {
      const text = `round ${n} stores marker${n}q`;
      const written = tally.record(await remember(waiting, 'ryw', text));
      expect(written.status, written.text).toBe(200);
      const found = tally.record(await search(waiting, 'ryw', `marker${n}q`, written.json.memory.revision));
      expect(found.status, found.text).toBe(200);
      expect(found.json.memory!.revision).toBeGreaterThanOrEqual(written.json.memory.revision);
      expect(
        found.json.hits.map((hit) => hit.text),
        `round ${n}`,
      ).toContain(text);
    }
    fromReplica =
      metric((await send(waiting.url, '/metrics')).text, 'powercontext_reads_total{target="replica"}') -
      readsBefore;
    tally.writes(rounds, rounds);
    tally.note(
      `${rounds} remember+search(min_revision) rounds in ${Math.round(performance.now() - began)} ms, every write seen; ${fromReplica} of the searches read the replica`,
    );
  });

  it('with replay paused: waits, then reads the primary or answers 409; without min_revision answers the older revision', async () => {
    const first = tally.record(await remember(waiting, 'paused', 'before the pause: harbour'));
    expect(first.status).toBe(200);
    const caughtUp = tally.record(await search(waiting, 'paused', 'harbour', first.json.memory.revision));
    expect(caughtUp.status).toBe(200);
    await query(replica!.adminUrl, 'SELECT pg_wal_replay_pause()');
    try {
      tally.fault();
      const second = tally.record(await remember(waiting, 'paused', 'during the pause: lighthouse harbour'));
      expect(second.status).toBe(200);
      const revision = second.json.memory.revision;

      const fellBack = tally.record(await search(waiting, 'paused', 'lighthouse', revision));
      expect(fellBack.status, fellBack.text).toBe(200);
      expect(fellBack.ms).toBeGreaterThanOrEqual(WAIT_MS * 0.9);
      expect(fellBack.json.memory!.revision).toBe(revision);
      expect(fellBack.json.hits.map((hit) => hit.text)).toContain('during the pause: lighthouse harbour');

      const refused = tally.record(await search(refusing, 'paused', 'lighthouse', revision));
      expect(refused.status, refused.text).toBe(409);
      expect(refused.json).toMatchObject({ error: { code: 'revision_not_visible', retryable: true } });
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.ms).toBeGreaterThanOrEqual(WAIT_MS * 0.9);

      // Without min_revision the replica answers what it has, and memory.revision says which.
      const stale = tally.record(await search(waiting, 'paused', 'harbour'));
      expect(stale.status).toBe(200);
      expect(stale.json.memory!.revision).toBe(first.json.memory.revision);
      expect(stale.json.hits.map((hit) => hit.text)).toEqual(['before the pause: harbour']);

      const ready = await send<{ replicas: { lag_seconds: number | null }[] }>(waiting.url, '/readyz');
      expect(ready.status).toBe(200);
      expect(ready.json.replicas[0]!.lag_seconds).toBeGreaterThan(0);
      tally.note(
        `replay paused: min_revision read fell back to the primary in ${Math.round(fellBack.ms)} ms (wait ${WAIT_MS} ms), 409 in ${Math.round(refused.ms)} ms; reported lag ${ready.json.replicas[0]!.lag_seconds} s`,
      );
    } finally {
      await query(replica!.adminUrl, 'SELECT pg_wal_replay_resume()');
    }
    const resumed = tally.record(
      await search(refusing, 'paused', 'lighthouse', first.json.memory.revision + 1),
    );
    expect(resumed.status, resumed.text).toBe(200);
  });

  it('the replica stopped and started under load: no 5xx beyond 503 database_unavailable, no lost write', async () => {
    let running = true;
    const outcomes: HttpResult[] = [];
    const acked = new Set<string>();
    let lastAcked = 0;
    const writer = async (id: number) => {
      for (let n = 0; running; n += 1) {
        const text = `load writer ${id} note ${n} about failover`;
        const result = tally.record(await remember(waiting, 'failover', text));
        outcomes.push(result);
        if (result.status === 200) {
          acked.add(text);
          lastAcked = Math.max(lastAcked, result.json.memory?.revision ?? 0);
        }
        await sleep(20);
      }
    };
    const reader = async (withRevision: boolean) => {
      let seen = 0;
      while (running) {
        const result = tally.record(
          await search(waiting, 'failover', 'failover note', withRevision && seen > 0 ? seen : undefined),
        );
        outcomes.push(result);
        if (result.status === 200 && result.json.memory) seen = result.json.memory.revision;
        await sleep(15);
      }
    };
    const load = Promise.all([writer(0), writer(1), reader(true), reader(false), reader(false)]);
    await sleep(1_500);
    tally.fault();
    await replica!.stop('fast');
    await sleep(2_500);
    await replica!.start();
    await sleep(6_500);
    running = false;
    await load;

    const serverErrors = outcomes.filter((result) => result.status >= 500 || result.status === 0);
    for (const result of serverErrors) {
      expect(result.status, result.text).toBe(503);
      expect(result.json).toMatchObject({ error: { code: 'database_unavailable', retryable: true } });
    }
    expect(outcomes.filter((result) => result.status >= 400 && result.status < 500)).toEqual([]);
    // Read at the last acknowledged write's revision at least: a replica that is still replaying it
    // must not make an acknowledged write look lost.
    const entries = await listAll(waiting.url, 'failover', undefined, lastAcked);
    const stored = new Set(entries.map((entry) => entry.text));
    const lost = [...acked].filter((text) => !stored.has(text));
    expect(lost).toEqual([]);
    expect(waiting.stderr()).toMatch(/store\.replica_down/u);
    // Reads return to the replica once it is back (after the 5 s it is left alone).
    const replicaReads = metric(
      (await send(waiting.url, '/metrics')).text,
      'powercontext_reads_total{target="replica"}',
    );
    const probe = tally.record(await search(waiting, 'failover', 'failover note'));
    expect(probe.status).toBe(200);
    expect(
      metric((await send(waiting.url, '/metrics')).text, 'powercontext_reads_total{target="replica"}'),
    ).toBe(replicaReads + 1);
    tally.writes(acked.size, acked.size - lost.length);
    tally.note(
      `replica stopped 2.5 s under load: ${outcomes.length} requests, ${serverErrors.length} answered 503, ${acked.size} writes acknowledged and all found`,
    );
  });
});
