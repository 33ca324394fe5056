import { InMemoryMemoryStore } from '@powercontext/memory-core/testing';
import { createRuntime, type Runtime } from '@powercontext/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../testing-support/in-process-app.js';
import { secretOf } from '../testing-support/test-keys.js';
import type { SearchResponse } from '../testing-support/wire-types.js';

const ALL = secretOf('alpha-all');
const NOTES = [
  'Incident ACME-7: payments-api returned 502s after the deploy.',
  'The rollback of payments-api on db-01 was done by Dana at 14:05.',
  'Lunch order: two pizzas for the team on Friday.',
];

interface Explained {
  hits: {
    entry_version_id: string;
    channel_ranks: Record<string, number>;
    rrf_contributions: Record<string, number>;
  }[];
}

const runtimes: Record<string, Runtime> = {};
beforeAll(async () => {
  runtimes.channels = await createRuntime({
    env: { POWERCONTEXT_SERVER_RUNTIME_MEMORY_SEARCH_CHANNELS: 'fts,vector,entity,graph' },
    store: new InMemoryMemoryStore(),
  });
  runtimes.default = await createRuntime({ env: {}, store: new InMemoryMemoryStore() });
});
afterAll(async () => {
  await Promise.all(Object.values(runtimes).map((runtime) => runtime.close()));
});

describe('search channels over HTTP (RFC 0013)', () => {
  it('names the entity and graph channels in matched_by, the explain and the capabilities', async () => {
    const { call } = createTestApp(runtimes.channels);
    const written = await call(
      '/v1/memory/remember',
      { scope_id: 'alpha', entries: NOTES.map((text) => ({ text })) },
      { key: ALL },
    );
    expect(written.status, written.text).toBe(200);
    const response = await call<SearchResponse & { explain: Explained }>(
      '/v1/memory/search',
      { scope_id: 'alpha', query: 'what happened with ACME-7?', mode: 'hybrid', explain: 'redacted' },
      { key: ALL },
    );
    expect(response.status, response.text).toBe(200);
    const [incident, rollback] = [NOTES[0], NOTES[1]].map((text) =>
      response.json.hits.findIndex((hit) => hit.text === text),
    );
    expect(response.json.hits[incident!]!.matched_by).toEqual(['fts', 'vector', 'entity']);
    expect(response.json.hits[rollback!]!.matched_by).toContain('graph');
    const explained = response.json.explain.hits[incident!]!;
    expect(explained.channel_ranks).toMatchObject({ fts: 1, entity: 1 });
    expect(explained.rrf_contributions.entity).toBe(1 / 61);
    expect(response.json.explain.hits[rollback!]!.rrf_contributions.graph).toBe(0.5 / 61);

    const capabilities = await call<{ search_channels: string[]; retrieval_policy_id: string }>(
      '/v1/capabilities',
      undefined,
      { key: ALL },
    );
    expect(capabilities.json.search_channels).toEqual(['fts', 'vector', 'entity', 'graph']);
    expect(capabilities.json.retrieval_policy_id).toContain('channels=fts:1,vector:0.1,entity:1,graph:0.5');
  });

  it('runs fts and vector only by default', async () => {
    const { call } = createTestApp(runtimes.default);
    await call(
      '/v1/memory/remember',
      { scope_id: 'alpha', entries: NOTES.map((text) => ({ text })) },
      { key: ALL },
    );
    const response = await call<SearchResponse>(
      '/v1/memory/search',
      { scope_id: 'alpha', query: 'what happened with ACME-7?', limit: 50 },
      { key: ALL },
    );
    expect(response.json.hits.length).toBeGreaterThan(0);
    for (const hit of response.json.hits)
      expect(['fts', 'vector']).toEqual(expect.arrayContaining(hit.matched_by));
    const capabilities = await call<{ search_channels: string[] }>('/v1/capabilities', undefined, {
      key: ALL,
    });
    expect(capabilities.json.search_channels).toEqual(['fts', 'vector']);
  });
});
