import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime, type Runtime } from '@powercontext/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchDescription } from '../mcp/memory-tools.js';
import { createTestApp } from '../testing-support/in-process-app.js';
import { createTestDatabase, type TestDatabase } from '../testing-support/test-database.js';
import { secretOf } from '../testing-support/test-keys.js';
import type { SearchResponse } from '../testing-support/wire-types.js';

const ALL = secretOf('alpha-all');
const TEXTS = [
  'Ben: Diego is vegetarian and Maya has a severe peanut allergy, the restaurant must know.',
  'Ana: the deploy freeze starts on Friday at noon.',
  'Ben: lunch is served in the atrium on Tuesdays.',
];
const QUESTION = 'What do we need to tell the restaurant about food?';

const dataDir = mkdtempSync(join(tmpdir(), 'pc-fallback-'));
let database: TestDatabase;
const runtimes: Record<string, Runtime> = {};

beforeAll(async () => {
  database = await createTestDatabase();
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

describe.each(['pglite', 'postgres'])('a question whose words match one entry (%s)', (store) => {
  it('answers that entry in every lexical mode, after the strict rule admitted nothing, and says so', async () => {
    const { call } = createTestApp(runtimes[store]);
    const written = await call(
      '/v1/memory/remember',
      { scope_id: 'alpha', entries: TEXTS.map((text) => ({ text })) },
      { key: ALL },
    );
    expect(written.status).toBe(200);
    for (const mode of ['auto', 'fts', 'hybrid'] as const) {
      const response = await call<SearchResponse & { explain: Record<string, unknown> }>(
        '/v1/memory/search',
        { scope_id: 'alpha', query: QUESTION, mode, explain: 'redacted' },
        { key: ALL },
      );
      expect(response.status, response.text).toBe(200);
      // On 6a3d005: no hits in any mode (4 query terms ask for 2 matched; the entry matches 1).
      expect(response.json.hits.map((hit) => hit.text)).toEqual([TEXTS[0]]);
      expect(response.json.explain.lexical_fallback).toEqual({
        reason: 'no_candidate_met_term_threshold',
        query_term_count: 4,
        admitted: 1,
      });
    }
    // A query that meets the rule is answered as before, with no fallback.
    const strict = await call<SearchResponse & { explain: Record<string, unknown> }>(
      '/v1/memory/search',
      { scope_id: 'alpha', query: 'peanut allergy at the restaurant', mode: 'fts', explain: 'redacted' },
      { key: ALL },
    );
    expect(strict.json.hits.map((hit) => hit.text)).toEqual([TEXTS[0]]);
    expect(strict.json.explain.lexical_fallback).toBeNull();
    // Nothing matches: still empty, and no fallback claimed.
    const none = await call<SearchResponse & { explain: Record<string, unknown> }>(
      '/v1/memory/search',
      { scope_id: 'alpha', query: 'quantum chromodynamics lecture notes', mode: 'fts', explain: 'redacted' },
      { key: ALL },
    );
    expect(none.json.hits).toEqual([]);
    expect(none.json.explain.lexical_fallback).toBeNull();
  });
});

describe('search_memory’s description', () => {
  it('promises meaning only when the embedder is semantic', () => {
    // The default runtime's embedder: the local hash, whose vectors match words.
    const lexical = searchDescription(runtimes.pglite!.capabilities().embeddingProfile);
    expect(lexical).toContain('by the words entries contain');
    expect(lexical).not.toContain('meaning;');
    expect(lexical).not.toMatch(/words and (by )?meaning/u);
    const semantic = searchDescription({
      id: 'openai:text-embedding-3-small@1536',
      dimension: 1536,
      normalization: 'l2',
      minCosine: 0.3,
    });
    expect(semantic).toContain('by words and by meaning');
  });
});
