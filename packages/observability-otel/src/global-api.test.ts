import { createRequire } from 'node:module';
import { metrics, trace } from '@opentelemetry/api';
import { afterAll, describe, expect, it } from 'vitest';
import { createOpenTelemetrySearchObserver, INSTRUMENTATION_SCOPE_NAME } from './index.js';
import { createTestSdk, rerankEnd, searchEnd } from './test-sdk.test.helper.js';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

// The tests of this file run in order and share the process-wide OpenTelemetry globals.
describe('the default tracer and meter of the global API', () => {
  const observer = createOpenTelemetrySearchObserver();
  const sdk = createTestSdk();

  afterAll(async () => {
    trace.disable();
    metrics.disable();
    await sdk.shutdown();
  });

  it('without an SDK registered, the observer is a no-op that never throws', () => {
    expect(trace.getTracer('probe').startSpan('probe').isRecording()).toBe(false);
    expect(() => {
      observer.searchStarted?.({ requestedMode: 'auto', limit: 5 });
      observer.rerankStarted?.({ policyId: 'p', candidateCount: 3, limit: 2 });
      observer.rerankEnded!(rerankEnd({ usage: { requests: 1, calls: 1, inputTokens: 3, outputTokens: 1 } }));
      observer.rerankEnded!(rerankEnd({ outcome: 'failed', degradationReason: 'timeout' }));
      observer.searchEnded!(searchEnd());
      observer.searchEnded!(searchEnd({ error: 'internal' }));
    }).not.toThrow();
  });

  it('an SDK registered after the observer was created receives its spans and metrics', async () => {
    expect(trace.setGlobalTracerProvider(sdk.tracerProvider)).toBe(true);
    expect(metrics.setGlobalMeterProvider(sdk.meterProvider)).toBe(true);

    observer.searchEnded!(searchEnd());
    observer.rerankEnded!(rerankEnd());

    const spans = sdk.spans();
    expect(spans.map((span) => span.name)).toEqual(['memory.search', 'memory.rerank']);
    for (const span of spans) {
      expect(span.instrumentationScope).toMatchObject({ name: INSTRUMENTATION_SCOPE_NAME, version });
    }
    expect(INSTRUMENTATION_SCOPE_NAME).toBe('@powercontext/memory');

    const scopes = await sdk.collectScopes();
    expect(scopes).toHaveLength(1);
    expect(scopes[0]!.scope).toMatchObject({ name: INSTRUMENTATION_SCOPE_NAME, version });
    expect(scopes[0]!.metrics.map((metric) => metric.descriptor.name)).toEqual(
      expect.arrayContaining([
        'memory.search.duration',
        'memory.rerank.duration',
        'memory.rerank.model_calls',
      ]),
    );
  });
});
