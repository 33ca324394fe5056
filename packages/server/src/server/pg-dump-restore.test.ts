// The README's "Backup and restore" for PostgreSQL (issue 30.1, RFC 0015), run as written there:
// `pg_dump -Fc` of a store's database while a runtime holds it open, `pg_restore` into a new database,
// and a runtime over the restored one answers exactly as the original did and writes on from its head.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createRuntime, type Runtime } from '@powercontext/runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing-support/test-database.js';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'pc-pg-dump-'));
const databases: TestDatabase[] = [];
afterAll(async () => {
  await Promise.all(databases.map((database) => database.drop()));
  rmSync(dir, { recursive: true, force: true });
});

async function openOn(database: TestDatabase): Promise<Runtime> {
  return createRuntime({ env: { POWERCONTEXT_SERVER_DATABASE_URL: database.connectionString } });
}

/** What a reader sees of a scope: its head, its entries with every field, and a search's hits. */
async function snapshot(runtime: Runtime, scopeId: string) {
  const memory = runtime.memory.forScope(scopeId);
  const listed = await memory.list({ state: 'all', limit: 100 });
  const found = await memory.search({ query: 'harbour lantern', limit: 5 });
  return {
    head: listed.memory?.revision,
    entries: listed.entries,
    hits: found.hits.map((hit) => ({ citation: hit.citation, text: hit.text, score: hit.score })),
  };
}

describe('PostgreSQL backup with pg_dump and pg_restore (README, RFC 0015)', { timeout: 120_000 }, () => {
  it('restores a dump taken while the store is open: same entries, same hits, writes go on', async () => {
    const original = await createTestDatabase();
    databases.push(original);
    const source = await openOn(original);
    let before: Awaited<ReturnType<typeof snapshot>>;
    try {
      const memory = source.memory.forScope('harbour');
      const written = await memory.remember({
        entries: [
          { text: 'The harbour lantern is lit at dusk by the night watch.', tags: ['watch'], pinned: true },
          { text: 'A second lantern hangs at the harbour gate.', occurredAt: '2026-06-01T00:00:00Z' },
          { text: 'Ferries leave the harbour every hour.', metadata: { route: 'north' } },
          { text: 'The old lighthouse was retired in 1990.' },
        ],
      });
      await memory.forget({ entryId: written.entries[3]!.entryId });
      await memory.revise({
        entryId: written.entries[2]!.entryId,
        text: 'Ferries leave the harbour every half hour.',
      });
      before = await snapshot(source, 'harbour');
      expect(before.hits.length).toBeGreaterThan(0);

      // The README's commands, while the runtime still holds its pool open.
      const dump = join(dir, 'powercontext.dump');
      await run('pg_dump', ['-Fc', '-d', original.connectionString, '-f', dump]);
      const restored = await createTestDatabase();
      databases.push(restored);
      await run('pg_restore', ['--exit-on-error', '-d', restored.connectionString, dump]);

      const copy = await openOn(restored);
      try {
        expect(await snapshot(copy, 'harbour')).toEqual(before);
        const next = await copy.memory
          .forScope('harbour')
          .remember({ entries: [{ text: 'A new harbour note.' }] });
        expect(next.memory.revision).toBe(before.head! + 1);
      } finally {
        await copy.close();
      }
    } finally {
      await source.close();
    }
  });
});
