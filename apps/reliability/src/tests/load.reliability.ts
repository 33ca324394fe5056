import { percentile, summarizeLatencies } from '@powercontext/cli-support';
import type { RememberResponse } from '@powercontext/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type HttpResult, send, sleep } from '../testing-support/http.js';
import { listAll } from '../testing-support/memory-reads.js';
import { createTestDatabase, type TestDatabase } from '../testing-support/postgres.js';
import { Tally } from '../testing-support/report.js';
import { type ServerProcess, startServer } from '../testing-support/server-process.js';

/**
 * Scenario 4: a bounded load run against one server process on PostgreSQL, loopback only. Requests
 * leave at a fixed rate whatever the answers do (open loop), mixed searches and writes. It checks that
 * no request fails, reports p50/p95/p99, and samples the server's resident memory to check that it
 * levels off rather than growing for the whole run.
 */

const DURATION_MS = 30_000;
const RATE_PER_SECOND = 40;
/** More requests in flight than this means the server fell behind the offered rate: a failure. */
const MAX_IN_FLIGHT = 64;
/** Growth of resident memory allowed over the second half of the run. */
const SECOND_HALF_GROWTH_LIMIT_MIB = 64;
const SCOPE = 'load';
const WORDS = [
  'deploy',
  'review',
  'freeze',
  'budget',
  'invoice',
  'incident',
  'oncall',
  'schema',
  'migration',
  'cache',
  'latency',
  'roadmap',
  'hiring',
  'design',
  'customer',
  'contract',
  'release',
  'backup',
  'alert',
  'quota',
];

const tally = new Tally('4 load (30 s at 40 req/s)');
let database: TestDatabase;
let server: ServerProcess;
const entryIds: string[] = [];
let serial = 0;

/** A deterministic sentence of `count` words. */
function sentence(seed: number, count: number): string {
  return Array.from({ length: count }, (_, index) => WORDS[(seed * 7 + index * 13) % WORDS.length]).join(' ');
}

beforeAll(async () => {
  database = await createTestDatabase();
  server = await startServer({
    args: ['--database-url', database.connectionString],
    env: { POWERCONTEXT_SERVER_LOG_LEVEL: 'info' },
  });
  for (let batch = 0; batch < 3; batch += 1) {
    const seeded = tally.record(
      await send<RememberResponse>(server.url, '/v1/memory/remember', {
        body: {
          scope_id: SCOPE,
          entries: Array.from({ length: 100 }, () => ({ text: `seed ${serial++}: ${sentence(serial, 8)}` })),
        },
      }),
    );
    expect(seeded.status).toBe(200);
    entryIds.push(...seeded.json.entries.map((entry) => entry.entry_id));
  }
});

afterAll(async () => {
  expect(await server?.stop()).toBe(0);
  await database?.drop();
  tally.save(inject('reportsDir'));
});

type Operation = 'search' | 'remember' | 'list' | 'get';

function pick(n: number): Operation {
  const slot = n % 20;
  if (slot < 14) return 'search';
  if (slot < 18) return 'remember';
  return slot === 18 ? 'list' : 'get';
}

describe('a fixed-rate mixed load on PostgreSQL', () => {
  it('answers every request, reports latency percentiles, and its memory levels off', async () => {
    const latencies: Record<Operation, number[]> = { search: [], remember: [], list: [], get: [] };
    const failures: HttpResult[] = [];
    const written = new Set<string>();
    const rss: { at: number; kib: number }[] = [];
    let inFlight = 0;
    let peakInFlight = 0;
    let overload = 0;

    const fire = async (n: number) => {
      const operation = pick(n);
      let result: HttpResult;
      switch (operation) {
        case 'search': {
          const mode = (['auto', 'fts', 'hybrid', 'vector'] as const)[n % 4];
          result = await send(server.url, '/v1/memory/search', {
            body: { scope_id: SCOPE, query: sentence(n, 3), limit: 10, mode },
          });
          break;
        }
        case 'remember': {
          const text = `load ${serial++}: ${sentence(n, 10)}`;
          result = await send<RememberResponse>(server.url, '/v1/memory/remember', {
            body: { scope_id: SCOPE, entries: [{ text }] },
          });
          if (result.status === 200) {
            written.add(text);
            entryIds.push((result as HttpResult<RememberResponse>).json.entries[0]!.entry_id);
          }
          break;
        }
        case 'list':
          result = await send(server.url, '/v1/memory/entries/list', {
            body: { scope_id: SCOPE, limit: 50 },
          });
          break;
        case 'get':
          result = await send(server.url, '/v1/memory/entries/get', {
            body: { scope_id: SCOPE, entry_id: entryIds[(n * 31) % entryIds.length] },
          });
          break;
      }
      tally.record(result);
      if (result.status === 200) latencies[operation].push(result.ms);
      else failures.push(result);
    };

    const began = performance.now();
    const sampler = setInterval(() => {
      const kib = server.rssKiB();
      if (kib !== undefined) rss.push({ at: performance.now() - began, kib });
    }, 250);
    const pending: Promise<void>[] = [];
    const total = (DURATION_MS / 1000) * RATE_PER_SECOND;
    for (let n = 0; n < total; n += 1) {
      const due = began + (n * 1000) / RATE_PER_SECOND;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      if (inFlight >= MAX_IN_FLIGHT) {
        overload += 1;
        continue;
      }
      inFlight += 1;
      peakInFlight = Math.max(peakInFlight, inFlight);
      pending.push(
        fire(n).finally(() => {
          inFlight -= 1;
        }),
      );
    }
    await Promise.all(pending);
    clearInterval(sampler);
    const elapsedS = (performance.now() - began) / 1000;

    expect(failures.map((failure) => `${failure.status} ${failure.errorKind}`)).toEqual([]);
    expect(overload, 'requests not sent because the server fell behind').toBe(0);
    expect(server.alive()).toBe(true);

    // Memory: the second half's growth, from the middle of the run to the end, stays bounded.
    const half = DURATION_MS / 2;
    const middle = rss.filter((sample) => sample.at >= half - 2_000 && sample.at <= half + 2_000);
    const end = rss.filter((sample) => sample.at >= DURATION_MS - 4_000);
    expect(middle.length).toBeGreaterThan(0);
    expect(end.length).toBeGreaterThan(0);
    const middleMiB =
      percentile(
        middle.map((sample) => sample.kib),
        50,
      ) / 1024;
    const endMiB = Math.max(...end.map((sample) => sample.kib)) / 1024;
    const startMiB = rss[0]!.kib / 1024;
    expect(endMiB - middleMiB).toBeLessThan(SECOND_HALF_GROWTH_LIMIT_MIB);

    const all = Object.values(latencies).flat();
    const overall = summarizeLatencies(all);
    const entries = await listAll(server.url, SCOPE);
    const texts = new Set(entries.map((entry) => entry.text));
    tally.writes(written.size, [...written].filter((text) => texts.has(text)).length);
    expect([...written].filter((text) => !texts.has(text))).toEqual([]);
    tally.note(
      `${all.length} answers in ${elapsedS.toFixed(1)} s; latency p50 ${overall.p50_ms.toFixed(1)} ms, p95 ${overall.p95_ms.toFixed(1)} ms, p99 ${overall.p99_ms.toFixed(1)} ms; peak ${peakInFlight} in flight`,
    );
    for (const [operation, samples] of Object.entries(latencies)) {
      if (samples.length === 0) continue;
      const summary = summarizeLatencies(samples);
      tally.note(
        `  ${operation} x${samples.length}: p50 ${summary.p50_ms.toFixed(1)} ms, p95 ${summary.p95_ms.toFixed(1)} ms, p99 ${summary.p99_ms.toFixed(1)} ms`,
      );
    }
    tally.note(
      `server RSS ${startMiB.toFixed(0)} MiB at start, ${middleMiB.toFixed(0)} MiB mid-run, ${endMiB.toFixed(0)} MiB at the end (second-half growth limit ${SECOND_HALF_GROWTH_LIMIT_MIB} MiB)`,
    );
  });
});
