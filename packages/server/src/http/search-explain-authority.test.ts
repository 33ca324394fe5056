import { InMemoryMemoryStore } from '@powercontext/memory-core/testing';
import { createRuntime, type Runtime } from '@powercontext/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchText } from '../cli/memory-output.js';
import { createTestApp } from '../testing-support/in-process-app.js';
import { secretOf } from '../testing-support/test-keys.js';
import type { RememberResponse, SearchResponse } from '../testing-support/wire-types.js';
import { searchResponseSchema } from './schemas/search-schemas.js';

const ALL = secretOf('alpha-all');
const runtimes: Record<string, Runtime> = {};

beforeAll(async () => {
  runtimes.today = await createRuntime({ env: {}, store: new InMemoryMemoryStore() });
  runtimes.boosted = await createRuntime({
    env: {
      POWERCONTEXT_SERVER_RUNTIME_MEMORY_AUTHORITY_PINNED_BOOST: '3',
      POWERCONTEXT_SERVER_RUNTIME_MEMORY_AUTHORITY_TAG_WEIGHTS: 'billing=0.5',
    },
    store: new InMemoryMemoryStore(),
  });
});
afterAll(async () => {
  await Promise.all(Object.values(runtimes).map((runtime) => runtime.close()));
});

async function searchWithExplain(runtime: Runtime) {
  const { call } = createTestApp(runtime);
  const written = await call<RememberResponse>(
    '/v1/memory/remember',
    {
      scope_id: 'alpha',
      entries: [
        { text: 'deploy deploy deploy on fridays' },
        { text: 'deploy after the freeze review', pinned: true, tags: ['Billing'] },
      ],
    },
    { key: ALL },
  );
  expect(written.status, written.text).toBe(200);
  const response = await call<SearchResponse>(
    '/v1/memory/search',
    { scope_id: 'alpha', query: 'deploy', mode: 'fts', explain: 'redacted' },
    { key: ALL },
  );
  expect(response.status, response.text).toBe(200);
  expect(searchResponseSchema.safeParse(response.json).error).toBeUndefined();
  return { ids: written.json.entries.map((entry) => entry.entry_id), body: response.json };
}

describe('explain of the authority step', () => {
  it('is null on every hit when every weight is 0, and the policy id is today’s', async () => {
    const { body } = await searchWithExplain(runtimes.today!);
    expect(body.explain!.retrieval_policy_id).not.toContain('authority');
    expect(body.explain!.hits.map((hit) => hit.authority)).toEqual([null, null]);
  });

  it('shows each hit’s fused score and boost over HTTP and in the command line’s text', async () => {
    const { ids, body } = await searchWithExplain(runtimes.boosted!);
    const explain = body.explain!;
    expect(explain.retrieval_policy_id).toContain(';authority=pinned:3,tags:{"billing":0.5})');
    // The pinned, billing-tagged entry matched once and still leads: 3 + 0.5 = 3.5.
    expect(body.hits.map((hit) => hit.citation.entry_id)).toEqual([ids[1], ids[0]]);
    const [pinned, plain] = explain.hits;
    expect(pinned!.authority).toMatchObject({ boost: 3.5, pinned_boost: 3, tag: 'billing', tag_weight: 0.5 });
    expect(body.hits[0]!.score).toBe(pinned!.authority!.fused_score * 4.5);
    expect(plain!.authority).toMatchObject({ boost: 0, pinned_boost: 0, tag: null, tag_weight: 0 });
    expect(body.hits[1]!.score).toBe(plain!.authority!.fused_score);
    const text = searchText(['alpha'], body as never, explain as never);
    expect(text).toContain('authority x4.50 of fused');
    expect(text).toContain('(pinned +3, tag "billing" +0.5)');
  });
});
