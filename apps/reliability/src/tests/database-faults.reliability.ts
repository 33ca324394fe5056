import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RememberResponse, SearchResponse } from '@powercontext/client';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { type HttpResult, send, sleep } from '../testing-support/http.js';
import { chainProblems, changesAll, listAll } from '../testing-support/memory-reads.js';
import { createTestDatabase, startPrivateCluster } from '../testing-support/postgres.js';
import { Tally } from '../testing-support/report.js';
import { startServer } from '../testing-support/server-process.js';

/**
 * Scenario 2: faults at the database.
 * - PostgreSQL: a cluster of the suite's own (initdb in a temp dir) is killed (`pg_ctl stop -m
 *   immediate`, like a crash) under a mixed load of writes and searches, and started again.
 * - PGlite: the server process is killed with SIGKILL while a large remember batch is being written,
 *   then started again on the same data directory.
 */

const reportsDir = inject('reportsDir');
const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** "Quickly" for an answer during the outage: a refused connection is seen at once. */
const OUTAGE_ANSWER_MS = 2_000;

describe('PostgreSQL stopped and restarted during a mixed load', () => {
  const tally = new Tally('2a PostgreSQL stop/restart');
  afterAll(() => tally.save(reportsDir));

  it('answers 503 database_unavailable quickly during the outage, recovers by itself, loses no acknowledged write', async () => {
    const cluster = await startPrivateCluster();
    cleanups.push(() => cluster.destroy());
    const database = await createTestDatabase(cluster.adminUrl);
    const server = await startServer({ args: ['--database-url', database.connectionString] });
    cleanups.push(async () => {
      await server.stop();
    });

    type Phase = 'before' | 'outage' | 'after';
    let phase: Phase = 'before';
    let running = true;
    const acked = new Map<string, string>(); // text -> entry id
    const unacked = new Set<string>();
    const outcomes: { phase: Phase; result: HttpResult; write: boolean }[] = [];
    let firstSuccessAfter: number | undefined;
    let restartedAt = 0;

    const note = (result: HttpResult, write: boolean) => {
      tally.record(result);
      outcomes.push({ phase, result, write });
      if (phase === 'after' && result.status === 200 && firstSuccessAfter === undefined) {
        firstSuccessAfter = performance.now();
      }
    };
    const writer = async (id: number) => {
      for (let n = 0; running; n += 1) {
        const text = `outage writer ${id} note ${n} about deploy windows`;
        const result = await send<RememberResponse>(server.url, '/v1/memory/remember', {
          body: { scope_id: 'outage', entries: [{ text }] },
        });
        note(result, true);
        if (result.status === 200) acked.set(text, result.json.entries[0]!.entry_id);
        else unacked.add(text);
        await sleep(result.status === 200 ? 25 : 100);
      }
    };
    const searcher = async () => {
      while (running) {
        const result = await send<SearchResponse>(server.url, '/v1/memory/search', {
          body: { scope_id: 'outage', query: 'deploy windows note', limit: 5 },
        });
        note(result, false);
        await sleep(result.status === 200 ? 25 : 100);
      }
    };
    const load = Promise.all([...[0, 1, 2, 3].map(writer), searcher(), searcher()]);

    await sleep(2_000);
    phase = 'outage';
    tally.fault();
    await cluster.stop('immediate');
    await sleep(3_000);
    await cluster.start();
    restartedAt = performance.now();
    phase = 'after';
    const giveUp = performance.now() + 20_000;
    while (firstSuccessAfter === undefined && performance.now() < giveUp) await sleep(50);
    await sleep(2_000);
    running = false;
    await load;

    expect(server.alive()).toBe(true);
    expect(firstSuccessAfter, 'the server never recovered').toBeDefined();
    const recoveryMs = firstSuccessAfter! - restartedAt;

    const failures = outcomes.filter((outcome) => outcome.result.status !== 200);
    // Every failure is the documented outage answer, given quickly.
    for (const { result } of failures) {
      expect(result.status, result.text).toBe(503);
      expect(result.json).toMatchObject({ error: { code: 'database_unavailable', retryable: true } });
      expect(result.headers.get('retry-after')).toBe('1');
      expect(result.ms).toBeLessThan(OUTAGE_ANSWER_MS);
    }
    expect(outcomes.filter((o) => o.phase === 'before' && o.result.status !== 200)).toEqual([]);
    expect(outcomes.filter((o) => o.phase === 'outage').length).toBeGreaterThan(0);
    expect(failures.length).toBeGreaterThan(0);
    // Once it answered again, it kept answering: no dead pooled connection failed a later request.
    const recovered = outcomes.findIndex((o) => o.phase === 'after' && o.result.status === 200);
    const afterRecovery = outcomes.slice(recovered + 1).filter((o) => o.result.status !== 200);
    expect(afterRecovery.map((o) => o.result.errorKind)).toEqual([]);

    const entries = await listAll(server.url, 'outage');
    const byText = new Map<string, number>();
    for (const entry of entries) byText.set(entry.text, (byText.get(entry.text) ?? 0) + 1);
    let found = 0;
    for (const [text, entryId] of acked) {
      expect(byText.get(text), `acknowledged write "${text}"`).toBe(1);
      expect(entries.find((entry) => entry.text === text)?.entry_id).toBe(entryId);
      found += 1;
    }
    const committedUnacked = [...unacked].filter((text) => byText.has(text)).length;
    for (const text of byText.keys()) expect(acked.has(text) || unacked.has(text)).toBe(true);
    const head = entries[0] ? Math.max(...entries.map((entry) => entry.revision)) : 0;
    expect(chainProblems(await changesAll(server.url, 'outage'), head)).toEqual([]);
    tally.writes(acked.size, found);
    tally.note(
      `${outcomes.filter((o) => o.phase === 'outage').length} requests during a 3 s outage, max error answer ${Math.round(Math.max(...failures.map((f) => f.result.ms)))} ms, recovered ${Math.round(recoveryMs)} ms after the restart; ${committedUnacked} of ${unacked.size} unacknowledged writes were committed`,
    );
    expect(await server.stop()).toBe(0);
  });
});

describe('PGlite: the server killed with SIGKILL in the middle of a large remember batch', () => {
  const tally = new Tally('2b PGlite SIGKILL');
  afterAll(() => tally.save(reportsDir));

  const BATCH = 500;
  const CYCLES = 2;

  it('reopens consistent: every acknowledged revision complete, no partial revision visible', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pc-reliability-pglite-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const dataDir = join(dir, 'data');
    const start = () =>
      startServer({ args: ['--data-dir', dataDir], env: { POWERCONTEXT_SERVER_LOG_LEVEL: 'warn' } });
    const batchTexts = (batch: number) =>
      Array.from({ length: BATCH }, (_, index) => `batch ${batch} entry ${index}: crash consistency probe`);

    const ackedBatches = new Map<number, RememberResponse>();
    const killedBatches: number[] = [];
    let batch = 0;
    let killedInside = 0;
    const batchMs: number[] = [];
    for (let cycle = 0; cycle < CYCLES; cycle += 1) {
      const server = await start();
      cleanups.push(async () => {
        await server.stop('SIGKILL');
      });
      // A batch that finishes, timed, then one that is killed part way through.
      let durationMs = 0;
      for (let done = 0; done < 1; done += 1) {
        const result = tally.record(
          await send<RememberResponse>(server.url, '/v1/memory/remember', {
            body: { scope_id: 'crash', entries: batchTexts(batch).map((text) => ({ text })) },
            timeoutMs: 120_000,
          }),
        );
        expect(result.status, result.text).toBe(200);
        ackedBatches.set(batch, result.json);
        durationMs = result.ms;
        batchMs.push(result.ms);
        batch += 1;
      }
      const victim = batch;
      batch += 1;
      killedBatches.push(victim);
      const pending = send(server.url, '/v1/memory/remember', {
        body: { scope_id: 'crash', entries: batchTexts(victim).map((text) => ({ text })) },
        timeoutMs: 120_000,
      });
      await sleep(durationMs * (0.3 + 0.4 * Math.random()));
      tally.fault();
      const stillWriting = server.alive();
      server.child.kill('SIGKILL');
      await server.exited;
      const killed = tally.record(await pending);
      if (killed.status === 200) ackedBatches.set(victim, killed.json as RememberResponse);
      else if (stillWriting) killedInside += 1;
    }

    const server = await start();
    cleanups.push(async () => {
      await server.stop();
    });
    try {
      const entries = await listAll(server.url, 'crash');
      const changes = await changesAll(server.url, 'crash');
      const head = Math.max(0, ...changes.map((change) => change.revision));
      expect(chainProblems(changes, head)).toEqual([]);
      // Every revision holds exactly one whole batch.
      const perRevision = new Map<number, Set<string>>();
      for (const change of changes) {
        const batchOf = /^batch (\d+) /u.exec(change.entry.text)?.[1];
        const set = perRevision.get(change.revision) ?? new Set<string>();
        set.add(batchOf ?? 'unknown');
        perRevision.set(change.revision, set);
      }
      for (const [revision, batches] of perRevision) {
        expect(batches.size, `revision ${revision} mixes batches`).toBe(1);
        expect(changes.filter((change) => change.revision === revision)).toHaveLength(BATCH);
      }
      const textCount = new Map<string, number>();
      const idOf = new Map<string, string>();
      for (const entry of entries) {
        textCount.set(entry.text, (textCount.get(entry.text) ?? 0) + 1);
        idOf.set(entry.text, entry.entry_id);
      }
      let found = 0;
      for (const [number, response] of ackedBatches) {
        const texts = batchTexts(number);
        for (const [index, text] of texts.entries()) {
          expect(textCount.get(text), text).toBe(1);
          expect(idOf.get(text)).toBe(response.entries[index]!.entry_id);
        }
        found += texts.length;
      }
      // A killed batch is there whole or not at all.
      for (const number of killedBatches) {
        if (ackedBatches.has(number)) continue;
        const present = batchTexts(number).filter((text) => textCount.has(text)).length;
        expect([0, BATCH], `killed batch ${number}`).toContain(present);
      }
      expect(entries.length).toBe(changes.length);
      tally.writes(ackedBatches.size * BATCH, found);
      tally.note(
        `${CYCLES} kills with SIGKILL, ${killedInside} inside an unanswered batch of ${BATCH} entries (a whole batch takes ${Math.round(Math.min(...batchMs))}-${Math.round(Math.max(...batchMs))} ms); head revision ${head}`,
      );
      tally.record(await send(server.url, '/healthz'));
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});
