import { InMemoryMemoryStore } from '@powercontext/memory-core/testing';
import { createRuntime } from '@powercontext/runtime';
import { describe, expect, it } from 'vitest';
import { ServerMetrics } from './metrics.js';

describe('ServerMetrics', () => {
  it('counts requests by route and code, searches by mode, and where reads ran', async () => {
    const metrics = new ServerMetrics();
    const runtime = await createRuntime({
      env: {},
      store: new InMemoryMemoryStore(),
      additionalObserver: metrics.observer,
      onRead: (target) => metrics.read(target),
    });
    try {
      const memory = runtime.memory.forScope('metrics');
      const written = await memory.remember({ entries: [{ text: 'metrics count searches' }] });
      await memory.search({ query: 'metrics searches', mode: 'fts' });
      await memory.search(
        { query: 'metrics searches', mode: 'fts' },
        { minRevision: written.memory.revision },
      );
      metrics.request('/v1/memory/search', 'POST', 200, 0.02);
      metrics.request('/v1/memory/search', 'POST', 503, 3);
      const text = metrics.render(await runtime.status?.());
      expect(text).toMatch(/^powercontext_searches_total\{mode="fts",outcome="ok"\} 2$/mu);
      expect(text).toMatch(/^powercontext_search_duration_seconds_count\{mode="fts",stage="search"\} 2$/mu);
      expect(text).toMatch(/^powercontext_reads_total\{target="primary"\} 2$/mu);
      expect(text).toMatch(
        /^powercontext_http_requests_total\{route="\/v1\/memory\/search",method="POST",code="503"\} 1$/mu,
      );
      // 3 s falls in the 5 s bucket and not in the 2.5 s one.
      expect(text).toMatch(
        /^powercontext_http_request_duration_seconds_bucket\{route="\/v1\/memory\/search",method="POST",code="503",le="2.5"\} 0$/mu,
      );
      expect(text).toMatch(
        /^powercontext_http_request_duration_seconds_bucket\{route="\/v1\/memory\/search",method="POST",code="503",le="5"\} 1$/mu,
      );
      expect(text).toMatch(/^powercontext_database_up 1$/mu);
    } finally {
      await runtime.close();
    }
  });

  it('refuses a min_revision the store does not have yet, with revision_not_visible', async () => {
    const runtime = await createRuntime({ env: {}, store: new InMemoryMemoryStore() });
    try {
      const memory = runtime.memory.forScope('ahead');
      const written = await memory.remember({ entries: [{ text: 'one revision' }] });
      await expect(
        memory.search({ query: 'revision' }, { minRevision: written.memory.revision + 1 }),
      ).rejects.toMatchObject({ code: 'revision_not_visible', retryable: true });
      await expect(memory.list({}, { minRevision: 0 })).rejects.toMatchObject({ code: 'invalid_request' });
    } finally {
      await runtime.close();
    }
  });
});
