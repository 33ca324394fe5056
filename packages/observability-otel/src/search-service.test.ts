import { SpanStatusCode } from '@opentelemetry/api';
import { MemoryService, RerankStage } from '@powercontext/memory-core';
import {
  createFakeEmbedder,
  createScriptedReranker,
  InMemoryMemoryStore,
} from '@powercontext/memory-core/testing';
import { createRrfRetrievalPolicy } from '@powercontext/retrieval-rrf';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenTelemetrySearchObserver } from './open-telemetry-search-observer.js';
import { createTestSdk, hrTimeToMs } from './test-sdk.test.helper.js';

const QUERY = 'secret query text';
const ENTRY = 'a private note: secret query text and a confidential garden plan';

describe('observer wired into a real MemoryService', () => {
  let sdk: ReturnType<typeof createTestSdk> | undefined;
  afterEach(async () => {
    await sdk?.shutdown();
  });

  async function searchWith(decide: () => number[] | never, failurePolicy: 'fail_open' | 'fail_closed') {
    sdk = createTestSdk();
    const store = new InMemoryMemoryStore();
    const embedder = createFakeEmbedder();
    const reranker = createScriptedReranker({ policyId: 'test.scripted.v1', decide });
    const service = new MemoryService({
      store,
      embedder,
      retrievalPolicy: createRrfRetrievalPolicy(),
      rerankStage: new RerankStage({ reranker, failurePolicy }),
      observer: createOpenTelemetrySearchObserver({ tracer: sdk.tracer, meter: sdk.meter }),
    });
    await service.remember('scope-private-42', {
      entries: [{ text: ENTRY }, { text: 'secret recipes for text messages' }, { text: 'query logs' }],
    });
    const result = await service.search('scope-private-42', { query: QUERY, limit: 2 }).catch((e) => e);
    return { sdk, result };
  }

  /** Everything a backend would receive: span names, attributes, status, events and all metric data. */
  async function exported(test: ReturnType<typeof createTestSdk>): Promise<string> {
    const spans = test.spans().map((span) => ({
      name: span.name,
      attributes: span.attributes,
      status: span.status,
      events: span.events,
      links: span.links,
      scope: span.instrumentationScope,
    }));
    return JSON.stringify({ spans, metrics: await test.collectMetrics() });
  }

  it('a reranked search exports a search and a rerank span, the rerank within the search, and no text', async () => {
    const { sdk, result } = await searchWith(() => [2, 1], 'fail_closed');
    expect(result.trace).toBeDefined();

    const spans = sdk.spans();
    expect(spans.map((span) => span.name)).toEqual(['memory.rerank', 'memory.search']);
    const [rerank, search] = spans;
    expect(search!.attributes).toMatchObject({ 'memory.search.reranked': true, 'memory.search.limit': 2 });
    expect(rerank!.attributes).toMatchObject({
      'memory.rerank.policy_id': 'test.scripted.v1',
      'memory.rerank.outcome': 'selected',
      'memory.rerank.selected_count': 2,
    });
    const tolerance = 0.05;
    expect(hrTimeToMs(rerank!.startTime)).toBeGreaterThanOrEqual(hrTimeToMs(search!.startTime) - tolerance);
    expect(hrTimeToMs(rerank!.endTime)).toBeLessThanOrEqual(hrTimeToMs(search!.endTime) + tolerance);

    const data = await exported(sdk);
    expect(data).toContain('memory.rerank.duration');
    for (const secret of [QUERY, 'secret', 'confidential', 'garden', 'scope-private-42']) {
      expect(data).not.toContain(secret);
    }
  });

  it('a failed rerank under fail_closed exports an error rerank span, a failed search span and no text', async () => {
    const { sdk, result } = await searchWith(() => {
      throw Object.assign(new Error(`model choked on "${QUERY}"`), { code: 'inference_unavailable' });
    }, 'fail_closed');
    expect(result).toBeInstanceOf(Error);

    const [rerank, search] = sdk.spans();
    expect(rerank!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'inference_unavailable' });
    expect(search!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'inference_unavailable' });
    expect(await sdk.points('memory.rerank.failures')).toEqual([
      {
        attributes: {
          'memory.rerank.policy_id': 'test.scripted.v1',
          'memory.rerank.degradation_reason': 'unavailable',
          'error.type': 'inference_unavailable',
        },
        value: 1,
      },
    ]);
    const data = await exported(sdk);
    for (const secret of [QUERY, 'choked', 'scope-private-42']) expect(data).not.toContain(secret);
  });

  it('a failed rerank under fail_open is a degradation and the search succeeds', async () => {
    const { sdk, result } = await searchWith(() => {
      throw Object.assign(new Error('slow'), { code: 'inference_timeout' });
    }, 'fail_open');
    expect(result.trace.degraded).toMatchObject({ reason: 'timeout' });
    const [rerank, search] = sdk.spans();
    expect(rerank!.attributes['memory.rerank.outcome']).toBe('degraded');
    expect(search!.status.code).toBe(SpanStatusCode.UNSET);
    expect(await sdk.points('memory.rerank.degradations')).toEqual([
      {
        attributes: {
          'memory.rerank.policy_id': 'test.scripted.v1',
          'memory.rerank.degradation_reason': 'timeout',
        },
        value: 1,
      },
    ]);
  });
});
