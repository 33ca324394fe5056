import { SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import type { SearchObserver } from '@powercontext/memory-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOpenTelemetrySearchObserver } from './open-telemetry-search-observer.js';
import { createTestSdk, hrTimeToMs, rerankEnd, searchEnd } from './test-sdk.test.helper.js';

describe('createOpenTelemetrySearchObserver with an SDK', () => {
  let sdk: ReturnType<typeof createTestSdk>;
  let observer: SearchObserver;

  beforeEach(() => {
    sdk = createTestSdk();
    observer = createOpenTelemetrySearchObserver({ tracer: sdk.tracer, meter: sdk.meter });
  });
  afterEach(async () => {
    await sdk.shutdown();
  });

  describe('search', () => {
    it('an end event makes one memory.search span ending now and lasting durationMs', () => {
      const before = performance.timeOrigin + performance.now();
      observer.searchEnded!(searchEnd({ durationMs: 42.5 }));
      const after = performance.timeOrigin + performance.now();

      const spans = sdk.spans();
      expect(spans).toHaveLength(1);
      const [span] = spans;
      expect(span!.name).toBe('memory.search');
      expect(span!.kind).toBe(SpanKind.INTERNAL);
      expect(span!.status.code).toBe(SpanStatusCode.UNSET);
      expect(span!.attributes).toEqual({
        'memory.search.mode': 'hybrid',
        'memory.search.limit': 5,
        'memory.search.hit_count': 3,
        'memory.search.reranked': true,
      });
      expect(hrTimeToMs(span!.duration)).toBeCloseTo(42.5, 3);
      const end = hrTimeToMs(span!.endTime);
      expect(end).toBeGreaterThanOrEqual(before - 0.01);
      expect(end).toBeLessThanOrEqual(after + 0.01);
    });

    it('records memory.search.duration in ms by mode and reranked', async () => {
      observer.searchEnded!(searchEnd({ durationMs: 40, mode: 'fts', reranked: false }));
      observer.searchEnded!(searchEnd({ durationMs: 60, mode: 'fts', reranked: false }));
      const metric = (await sdk.collectMetrics()).find((m) => m.descriptor.name === 'memory.search.duration');
      expect(metric?.descriptor.unit).toBe('ms');
      expect(metric?.dataPoints).toHaveLength(1);
      expect(metric?.dataPoints[0]).toMatchObject({
        attributes: { 'memory.search.mode': 'fts', 'memory.search.reranked': false },
        value: { count: 2, sum: 100, min: 40, max: 60 },
      });
    });

    it('a failed search sets the error status and error.type on the span and the duration', async () => {
      observer.searchEnded!(searchEnd({ error: 'capability_unavailable', hitCount: 0, reranked: false }));
      const [span] = sdk.spans();
      expect(span!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'capability_unavailable' });
      expect(span!.attributes['error.type']).toBe('capability_unavailable');
      expect(await sdk.points('memory.search.duration')).toMatchObject([
        { attributes: { 'error.type': 'capability_unavailable' }, value: { count: 1 } },
      ]);
    });

    it('a negative or non-finite duration is recorded as 0 rather than dropped', async () => {
      observer.searchEnded!(searchEnd({ durationMs: -3 }));
      observer.searchEnded!(searchEnd({ durationMs: Number.NaN }));
      expect(sdk.spans().map((span) => hrTimeToMs(span.duration))).toEqual([0, 0]);
      expect(await sdk.points('memory.search.duration')).toMatchObject([{ value: { count: 2, sum: 0 } }]);
    });
  });

  describe('rerank', () => {
    it('a selected rerank makes a memory.rerank span with counts, outcome and usage', async () => {
      observer.rerankEnded!(rerankEnd());
      const [span] = sdk.spans();
      expect(span!.name).toBe('memory.rerank');
      expect(span!.status.code).toBe(SpanStatusCode.UNSET);
      expect(span!.attributes).toEqual({
        'memory.rerank.policy_id': 'test.policy.v1',
        'memory.rerank.candidate_count': 30,
        'memory.rerank.limit': 5,
        'memory.rerank.outcome': 'selected',
        'memory.rerank.selected_count': 5,
        'memory.rerank.discarded_rank_count': 1,
        'memory.rerank.queue_wait_ms': 2.25,
        'memory.rerank.saturated': false,
        'memory.rerank.usage.requests': 1,
        'memory.rerank.usage.calls': 1,
      });
      expect(hrTimeToMs(span!.duration)).toBeCloseTo(120, 3);

      const policy = { 'memory.rerank.policy_id': 'test.policy.v1' };
      expect(await sdk.points('memory.rerank.duration')).toMatchObject([
        { attributes: { ...policy, 'memory.rerank.outcome': 'selected' }, value: { count: 1, sum: 120 } },
      ]);
      expect(await sdk.points('memory.rerank.model_requests')).toEqual([{ attributes: policy, value: 1 }]);
      expect(await sdk.points('memory.rerank.model_calls')).toEqual([{ attributes: policy, value: 1 }]);
      for (const name of [
        'memory.rerank.failures',
        'memory.rerank.degradations',
        'memory.rerank.fallbacks',
        'memory.rerank.saturations',
      ]) {
        expect(await sdk.points(name), name).toEqual([]);
      }
    });

    it('a degraded rerank makes a span with the reason and counts a degradation, not a failure', async () => {
      observer.rerankEnded!(
        rerankEnd({
          outcome: 'degraded',
          selectedCount: 0,
          discardedRankCount: 0,
          degradationReason: 'timeout',
          errorCode: 'inference_timeout',
        }),
      );
      const [span] = sdk.spans();
      expect(span!.name).toBe('memory.rerank');
      expect(span!.status.code).toBe(SpanStatusCode.UNSET);
      expect(span!.attributes).toMatchObject({
        'memory.rerank.outcome': 'degraded',
        'memory.rerank.degradation_reason': 'timeout',
        'memory.rerank.error_code': 'inference_timeout',
      });
      expect(span!.attributes['error.type']).toBeUndefined();
      expect(await sdk.points('memory.rerank.degradations')).toEqual([
        {
          attributes: {
            'memory.rerank.policy_id': 'test.policy.v1',
            'memory.rerank.degradation_reason': 'timeout',
          },
          value: 1,
        },
      ]);
      expect(await sdk.points('memory.rerank.failures')).toEqual([]);
    });

    it('a failed rerank sets the error status and counts a failure by reason and error code', async () => {
      observer.rerankEnded!(
        rerankEnd({
          outcome: 'failed',
          selectedCount: 0,
          discardedRankCount: 0,
          degradationReason: 'invalid_output',
          errorCode: 'inference_invalid_output',
        }),
      );
      observer.rerankEnded!(
        rerankEnd({ outcome: 'failed', selectedCount: 0, degradationReason: 'rerank_failure' }),
      );
      const [first, second] = sdk.spans();
      expect(first!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'inference_invalid_output' });
      expect(first!.attributes['error.type']).toBe('inference_invalid_output');
      expect(second!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'rerank_failure' });
      expect(second!.attributes['error.type']).toBe('rerank_failure');

      const failures = await sdk.points('memory.rerank.failures');
      expect(failures).toHaveLength(2);
      expect(failures).toEqual(
        expect.arrayContaining([
          {
            attributes: {
              'memory.rerank.policy_id': 'test.policy.v1',
              'memory.rerank.degradation_reason': 'invalid_output',
              'error.type': 'inference_invalid_output',
            },
            value: 1,
          },
          {
            attributes: {
              'memory.rerank.policy_id': 'test.policy.v1',
              'memory.rerank.degradation_reason': 'rerank_failure',
              'error.type': 'rerank_failure',
            },
            value: 1,
          },
        ]),
      );
      expect(await sdk.points('memory.rerank.degradations')).toEqual([]);
      expect(await sdk.points('memory.rerank.duration')).toMatchObject([
        { attributes: { 'memory.rerank.outcome': 'failed' }, value: { count: 2 } },
      ]);
    });

    it('counts fallbacks and saturations by policy', async () => {
      observer.rerankEnded!(rerankEnd({ outcome: 'fallback' }));
      observer.rerankEnded!(
        rerankEnd({
          outcome: 'degraded',
          selectedCount: 0,
          degradationReason: 'saturated',
          errorCode: 'rerank_saturated',
          saturated: true,
          usage: { requests: 0, calls: 0 },
        }),
      );
      const policy = { 'memory.rerank.policy_id': 'test.policy.v1' };
      expect(await sdk.points('memory.rerank.fallbacks')).toEqual([{ attributes: policy, value: 1 }]);
      expect(await sdk.points('memory.rerank.saturations')).toEqual([{ attributes: policy, value: 1 }]);
      expect(sdk.spans()[1]!.attributes['memory.rerank.saturated']).toBe(true);
      // The saturated rerank sent nothing: only the fallback's request is counted.
      expect(await sdk.points('memory.rerank.model_requests')).toEqual([{ attributes: policy, value: 1 }]);
    });

    it('counts tokens by token.type only when the usage reports them', async () => {
      observer.rerankEnded!(rerankEnd());
      expect(await sdk.points('memory.rerank.tokens')).toEqual([]);
      expect(sdk.spans()[0]!.attributes).not.toHaveProperty('memory.rerank.usage.input_tokens');

      observer.rerankEnded!(
        rerankEnd({ usage: { requests: 2, calls: 1, inputTokens: 900, outputTokens: 12, totalTokens: 912 } }),
      );
      observer.rerankEnded!(rerankEnd({ usage: { requests: 1, calls: 1, inputTokens: 100 } }));
      const policy = { 'memory.rerank.policy_id': 'test.policy.v1' };
      const tokens = await sdk.points('memory.rerank.tokens');
      expect(tokens).toHaveLength(2);
      expect(tokens).toEqual(
        expect.arrayContaining([
          { attributes: { ...policy, 'token.type': 'input' }, value: 1000 },
          { attributes: { ...policy, 'token.type': 'output' }, value: 12 },
        ]),
      );
      expect(await sdk.points('memory.rerank.model_requests')).toEqual([{ attributes: policy, value: 4 }]);
      expect(sdk.spans()[1]!.attributes).toMatchObject({
        'memory.rerank.usage.requests': 2,
        'memory.rerank.usage.input_tokens': 900,
        'memory.rerank.usage.output_tokens': 12,
        'memory.rerank.usage.total_tokens': 912,
      });
    });
  });

  it('metric attributes stay low-cardinality: only policy, mode, outcome, reason, error and token type', async () => {
    observer.searchEnded!(searchEnd({ error: 'internal' }));
    observer.rerankEnded!(
      rerankEnd({
        outcome: 'failed',
        degradationReason: 'timeout',
        errorCode: 'inference_timeout',
        usage: { requests: 1, calls: 1, inputTokens: 5, outputTokens: 1 },
      }),
    );
    observer.rerankEnded!(
      rerankEnd({ outcome: 'degraded', degradationReason: 'unavailable', saturated: true }),
    );
    const allowed = new Set([
      'memory.search.mode',
      'memory.search.reranked',
      'memory.rerank.policy_id',
      'memory.rerank.outcome',
      'memory.rerank.degradation_reason',
      'error.type',
      'token.type',
    ]);
    const keys = (await sdk.collectMetrics()).flatMap((metric) =>
      metric.dataPoints.flatMap((point) => Object.keys(point.attributes)),
    );
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.filter((key) => !allowed.has(key))).toEqual([]);
  });

  it('never lets an OpenTelemetry failure reach the search', () => {
    const throwing = {
      startSpan() {
        throw new Error('broken tracer');
      },
    } as unknown as Tracer;
    const broken = createOpenTelemetrySearchObserver({ tracer: throwing, meter: sdk.meter });
    expect(() => broken.searchEnded!(searchEnd())).not.toThrow();
    expect(() => broken.rerankEnded!(rerankEnd())).not.toThrow();
  });
});
