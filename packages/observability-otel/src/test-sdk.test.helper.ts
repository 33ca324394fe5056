import type { Attributes, HrTime } from '@opentelemetry/api';
import {
  DataPointType,
  type Histogram,
  MeterProvider,
  type MetricData,
  MetricReader,
  type ScopeMetrics,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import type { RerankEndEvent, SearchEndEvent } from '@powercontext/memory-core';

/** A metric reader that exports nothing on its own; tests pull from it with `collect()`. */
class PullReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export interface Point {
  attributes: Attributes;
  value: number | Histogram;
}

/** A real SDK pipeline: an in-memory span exporter and a pull metric reader. */
export function createTestSdk() {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new PullReader();
  const meterProvider = new MeterProvider({ readers: [reader] });

  async function collectScopes(): Promise<ScopeMetrics[]> {
    const { resourceMetrics, errors } = await reader.collect();
    if (errors.length > 0) throw new AggregateError(errors, 'metric collection failed');
    return resourceMetrics.scopeMetrics;
  }
  async function collectMetrics(): Promise<MetricData[]> {
    return (await collectScopes()).flatMap((scope) => scope.metrics);
  }

  return {
    tracerProvider,
    meterProvider,
    tracer: tracerProvider.getTracer('test'),
    meter: meterProvider.getMeter('test'),
    spans: (): ReadableSpan[] => exporter.getFinishedSpans(),
    collectScopes,
    collectMetrics,
    /** Data points of one metric (empty when it has none). */
    async points(name: string): Promise<Point[]> {
      const metric = (await collectMetrics()).find((m) => m.descriptor.name === name);
      if (!metric) return [];
      return metric.dataPoints.map((point) => ({
        attributes: point.attributes,
        value:
          metric.dataPointType === DataPointType.HISTOGRAM
            ? (point.value as Histogram)
            : (point.value as number),
      }));
    },
    async shutdown() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

export function hrTimeToMs([seconds, nanos]: HrTime): number {
  return seconds * 1e3 + nanos / 1e6;
}

export function searchEnd(overrides: Partial<SearchEndEvent> = {}): SearchEndEvent {
  return { mode: 'hybrid', limit: 5, hitCount: 3, durationMs: 42.5, reranked: true, ...overrides };
}

export function rerankEnd(overrides: Partial<RerankEndEvent> = {}): RerankEndEvent {
  return {
    policyId: 'test.policy.v1',
    candidateCount: 30,
    limit: 5,
    outcome: 'selected',
    selectedCount: 5,
    discardedRankCount: 1,
    queueWaitMs: 2.25,
    durationMs: 120,
    saturated: false,
    usage: { requests: 1, calls: 1 },
    ...overrides,
  };
}
