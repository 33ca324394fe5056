import type { RememberResponse, SearchResponse } from '@powercontext/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type HttpResult, send, sleep } from '../testing-support/http.js';
import { chainProblems, changesAll, listAll } from '../testing-support/memory-reads.js';
import { createTestDatabase, type TestDatabase } from '../testing-support/postgres.js';
import { Tally } from '../testing-support/report.js';
import { type ServerProcess, startServer } from '../testing-support/server-process.js';

/**
 * Scenario 3: 32 concurrent writers on one scope plus concurrent searches, over HTTP, on PostgreSQL.
 * The writers are spread over two server processes on one database, so both the in-process write
 * lock and the cross-process compare-and-swap on the revision are exercised. A writer repeats a
 * write that lost with 409 revision_conflict (retryable), as a client should.
 */

const WRITERS = 32;
const WRITES_PER_WRITER = 5;
const SEARCHERS = 4;
/** No deadlock: the whole run ends well within this (it takes a few seconds). */
const RUN_BOUND_MS = 90_000;
const SCOPE = 'contended';
const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];

const tally = new Tally('3 concurrency (32 writers)');
let database: TestDatabase;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  // The first process migrates the new database alone (RFC 0005: concurrent first starts can race).
  const start = () =>
    startServer({
      args: ['--database-url', database.connectionString],
      env: { POWERCONTEXT_SERVER_LOG_LEVEL: 'warn' },
    });
  servers.push(await start());
  servers.push(await start());
});

afterAll(async () => {
  const codes = await Promise.all(servers.map((server) => server.stop()));
  await database?.drop();
  tally.save(inject('reportsDir'));
  expect(codes).toEqual(servers.map(() => 0));
});

describe('32 concurrent writers on one scope with concurrent searches', () => {
  it('keeps every acknowledged write exactly once, one gap-free revision chain, unmixed searches, no deadlock', async () => {
    const acked = new Map<string, { entryId: string; versionId: string; revision: number }>();
    const searches: SearchResponse[] = [];
    let writing = true;
    let conflicts = 0;

    const writer = async (id: number) => {
      const server = servers[id % servers.length]!;
      for (let n = 0; n < WRITES_PER_WRITER; n += 1) {
        const text = `writer ${id} write ${n}: ${WORDS[(id + n) % WORDS.length]} ${WORDS[n % WORDS.length]} status`;
        for (let attempt = 0; ; attempt += 1) {
          const result: HttpResult<RememberResponse> = tally.record(
            await send<RememberResponse>(server.url, '/v1/memory/remember', {
              body: { scope_id: SCOPE, entries: [{ text }] },
            }),
          );
          if (result.status === 200) {
            const entry = result.json.entries[0]!;
            expect(entry.status).toBe('created');
            acked.set(text, {
              entryId: entry.entry_id,
              versionId: entry.entry_version_id,
              revision: result.json.memory.revision,
            });
            break;
          }
          expect(result.json, result.text).toMatchObject({
            error: { code: 'revision_conflict', retryable: true },
          });
          conflicts += 1;
          expect(attempt, 'a write kept losing').toBeLessThan(50);
        }
      }
    };
    const searcher = async (id: number) => {
      const server = servers[id % servers.length]!;
      for (let n = 0; writing; n += 1) {
        const result = tally.record(
          await send<SearchResponse>(server.url, '/v1/memory/search', {
            body: {
              scope_id: SCOPE,
              query: `${WORDS[n % WORDS.length]} status`,
              limit: 20,
              mode: n % 2 ? 'fts' : 'hybrid',
            },
          }),
        );
        expect(result.status, result.text).toBe(200);
        searches.push(result.json);
        await sleep(10);
      }
    };

    const began = performance.now();
    const writers = Promise.all(Array.from({ length: WRITERS }, (_, id) => writer(id)));
    const searchers = Promise.all(Array.from({ length: SEARCHERS }, (_, id) => searcher(id)));
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no progress within ${RUN_BOUND_MS} ms: deadlock?`)),
        RUN_BOUND_MS,
      );
    });
    try {
      await Promise.race([writers, bound]);
      writing = false;
      await Promise.race([searchers, bound]);
    } finally {
      writing = false;
      clearTimeout(timer);
    }
    const runMs = performance.now() - began;

    // Every acknowledged write exactly once, with the ids it was acknowledged with.
    const entries = await listAll(servers[0]!.url, SCOPE);
    expect(entries).toHaveLength(WRITERS * WRITES_PER_WRITER);
    expect(acked.size).toBe(WRITERS * WRITES_PER_WRITER);
    const byText = new Map(entries.map((entry) => [entry.text, entry]));
    expect(byText.size).toBe(entries.length);
    let found = 0;
    for (const [text, write] of acked) {
      const entry = byText.get(text);
      expect(entry?.entry_id).toBe(write.entryId);
      expect(entry?.entry_version_id).toBe(write.versionId);
      expect(entry?.revision).toBe(write.revision);
      if (entry) found += 1;
    }
    tally.writes(acked.size, found);

    // One gap-free chain: revisions 1..N, one per acknowledged write, each acknowledged once.
    const head = WRITERS * WRITES_PER_WRITER;
    const changes = await changesAll(servers[1]!.url, SCOPE);
    expect(chainProblems(changes, head)).toEqual([]);
    expect(changes).toHaveLength(head);
    expect(new Set([...acked.values()].map((write) => write.revision)).size).toBe(head);

    // No search mixes revisions: every hit cites the response's revision, and existed at it.
    const createdAt = new Map(changes.map((change) => [change.entry.entry_version_id, change.revision]));
    let hits = 0;
    for (const response of searches) {
      for (const hit of response.hits) {
        hits += 1;
        expect(hit.citation.memory_ref).toEqual(response.memory);
        const created = createdAt.get(hit.citation.entry_version_id);
        expect(created).toBeDefined();
        expect(created!).toBeLessThanOrEqual(response.memory!.revision);
      }
    }
    expect(searches.length).toBeGreaterThan(0);
    tally.note(
      `${WRITERS} writers x ${WRITES_PER_WRITER} writes over 2 processes in ${Math.round(runMs)} ms, ${conflicts} retried 409s, ${searches.length} searches with ${hits} hits checked`,
    );
  });
});
