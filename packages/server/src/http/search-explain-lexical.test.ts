import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryMemoryStore } from '@powercontext/memory-core/testing';
import { createRuntime, type Runtime } from '@powercontext/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../testing-support/in-process-app.js';
import { createTestDatabase, type TestDatabase } from '../testing-support/test-database.js';
import { secretOf } from '../testing-support/test-keys.js';
import type { RememberResponse, SearchResponse } from '../testing-support/wire-types.js';

const ALL = secretOf('alpha-all');
// One conversation: each turn is indexed with the words of the two turns before and after it.
const TURNS = [
  'Zoë: I found a new café downtown.',
  'Ben: Which one? The espresso bar?',
  'Zoë: Yes, Monday at noon.',
  'Ben: Great, see you there.',
];
// Accents folded: "cafe" finds "café", "Zoë" finds "Zoë" and the plain "zoe" alike.
const QUESTION = 'cafe Zoë';

const dataDir = mkdtempSync(join(tmpdir(), 'pc-explain-lexical-'));
let database: TestDatabase;
const runtimes: Record<string, Runtime> = {};

beforeAll(async () => {
  database = await createTestDatabase();
  runtimes.memory = await createRuntime({ env: {}, store: new InMemoryMemoryStore() });
  runtimes.pglite = await createRuntime({ env: { POWERCONTEXT_SERVER_DATA_DIR: dataDir } });
  runtimes.postgres = await createRuntime({
    env: { POWERCONTEXT_SERVER_DATABASE_URL: database.connectionString },
  });
}, 60_000);

afterAll(async () => {
  await Promise.all(Object.values(runtimes).map((runtime) => runtime.close()));
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe.each(['memory', 'pglite', 'postgres'])('explain of a lexical match (%s store)', (store) => {
  it('says per hit which query terms are its own words and which only its neighbours’', async () => {
    const { call } = createTestApp(runtimes[store]);
    const written = await call<RememberResponse>(
      '/v1/memory/remember',
      {
        scope_id: 'alpha',
        entries: [
          ...TURNS.map((text, order) => ({ text, position: { source_id: 'chat', order } })),
          { text: 'A note about trains' },
        ],
      },
      { key: ALL },
    );
    expect(written.status, written.text).toBe(200);
    const entryIds = written.json.entries.map((entry) => entry.entry_id);

    const request = { scope_id: 'alpha', query: QUESTION, mode: 'fts' };
    const response = await call<SearchResponse>(
      '/v1/memory/search',
      { ...request, explain: 'redacted' },
      { key: ALL },
    );
    expect(response.status, response.text).toBe(200);
    const explain = response.json.explain!;
    expect(explain.lexical_query_terms).toEqual(['cafe', 'zoe']);
    const byEntry = new Map(
      response.json.hits.map((hit, index) => [hit.citation.entry_id, explain.hits[index]!.lexical]),
    );
    expect([...byEntry.keys()].sort()).toEqual(entryIds.slice(0, 4).sort());
    expect(byEntry.get(entryIds[0]!)).toEqual({ own_terms: ['cafe', 'zoe'], context_terms: [] });
    // The reply names neither: both terms came from the turn before it.
    expect(byEntry.get(entryIds[1]!)).toEqual({ own_terms: [], context_terms: ['cafe', 'zoe'] });
    expect(byEntry.get(entryIds[2]!)).toEqual({ own_terms: ['zoe'], context_terms: ['cafe'] });
    expect(byEntry.get(entryIds[3]!)).toEqual({ own_terms: [], context_terms: ['zoe'] });

    // Without explain the response is the v1 shape, the same hits in the same order.
    const plain = await call<SearchResponse>('/v1/memory/search', request, { key: ALL });
    expect(plain.json).not.toHaveProperty('explain');
    const { explain: _explain, ...rest } = response.json;
    expect(rest).toEqual(plain.json);

    // A vector search has no lexical channel: nothing to say about lexical matches.
    const vector = await call<SearchResponse>(
      '/v1/memory/search',
      { ...request, mode: 'vector', explain: 'redacted' },
      { key: ALL },
    );
    expect(vector.status, vector.text).toBe(200);
    expect(vector.json.explain!.lexical_query_terms).toBeNull();
    expect(vector.json.explain!.hits.every((hit) => hit.lexical === null)).toBe(true);
  });
});
