import { createRequire } from 'node:module';
import {
  type Attributes,
  type Counter,
  diag,
  type Histogram,
  type HrTime,
  type Meter,
  type MeterProvider,
  metrics,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { RerankEndEvent, SearchEndEvent, SearchObserver } from '@powercontext/memory-core';

/** Instrumentation scope of the default tracer and meter. */
export const INSTRUMENTATION_SCOPE_NAME = '@powercontext/memory';

// dist/*.js and src/*.ts both sit one level below the package root.
const { version: INSTRUMENTATION_SCOPE_VERSION } = createRequire(import.meta.url)('../package.json') as {
  version: string;
};

export interface OpenTelemetrySearchObserverOptions {
  /**
   * Default: `trace.getTracer('@powercontext/memory', <package version>)` from the global API. It
   * delegates to whichever tracer provider the application registers, also after this call.
   */
  tracer?: Tracer;
  /**
   * Default: `metrics.getMeter('@powercontext/memory', <package version>)` from the global API, looked
   * up again whenever the global meter provider changes, so an SDK registered later is picked up.
   */
  meter?: Meter;
}

interface Instruments {
  searchDuration: Histogram;
  rerankDuration: Histogram;
  failures: Counter;
  degradations: Counter;
  fallbacks: Counter;
  saturations: Counter;
  modelRequests: Counter;
  modelCalls: Counter;
  tokens: Counter;
}

/**
 * A memory-core `SearchObserver` that records OpenTelemetry spans and metrics through
 * `@opentelemetry/api` only; without an SDK installed by the application every call is a no-op.
 *
 * Spans are recorded when an operation ends, with a start time of end minus `durationMs`: the port's
 * events carry no handle linking an end to its start, so nothing has to be matched up and concurrent
 * searches cannot be confused. As a consequence `memory.rerank` is not a child of `memory.search`: both
 * are children of the caller's active span, and the rerank span's interval lies within the search span's.
 *
 * Only counts, ids, modes, outcomes and error codes are recorded (the events carry no query or
 * candidate text); metric attributes are low-cardinality (policy id, mode, outcome, reason, error code).
 * A failure inside OpenTelemetry is reported to `diag` and never reaches the search.
 */
export function createOpenTelemetrySearchObserver(
  options: OpenTelemetrySearchObserverOptions = {},
): SearchObserver {
  const tracer = options.tracer ?? trace.getTracer(INSTRUMENTATION_SCOPE_NAME, INSTRUMENTATION_SCOPE_VERSION);
  const instruments = options.meter ? fixedInstruments(options.meter) : globalInstruments();

  return {
    searchEnded(event) {
      guard('searchEnded', () => recordSearch(tracer, instruments(), event));
    },
    rerankEnded(event) {
      guard('rerankEnded', () => recordRerank(tracer, instruments(), event));
    },
  };
}

function recordSearch(tracer: Tracer, instruments: Instruments, event: SearchEndEvent): void {
  const durationMs = nonNegative(event.durationMs);
  const { start, end } = endingNow(durationMs);
  const failed = event.error !== undefined;
  const span = tracer.startSpan('memory.search', {
    kind: SpanKind.INTERNAL,
    startTime: start,
    attributes: {
      'memory.search.mode': event.mode,
      'memory.search.limit': event.limit,
      'memory.search.hit_count': event.hitCount,
      'memory.search.reranked': event.reranked,
      ...(failed ? { 'error.type': event.error } : {}),
    },
  });
  if (failed) span.setStatus({ code: SpanStatusCode.ERROR, message: event.error });
  span.end(end);

  instruments.searchDuration.record(durationMs, {
    'memory.search.mode': event.mode,
    'memory.search.reranked': event.reranked,
    ...(failed ? { 'error.type': event.error } : {}),
  });
}

function recordRerank(tracer: Tracer, instruments: Instruments, event: RerankEndEvent): void {
  const durationMs = nonNegative(event.durationMs);
  const { start, end } = endingNow(durationMs);
  const { usage } = event;
  const failed = event.outcome === 'failed';
  const errorType = event.errorCode ?? event.degradationReason ?? 'rerank_failure';

  const attributes: Attributes = {
    'memory.rerank.policy_id': event.policyId,
    'memory.rerank.candidate_count': event.candidateCount,
    'memory.rerank.limit': event.limit,
    'memory.rerank.outcome': event.outcome,
    'memory.rerank.selected_count': event.selectedCount,
    'memory.rerank.discarded_rank_count': event.discardedRankCount,
    'memory.rerank.queue_wait_ms': nonNegative(event.queueWaitMs),
    'memory.rerank.saturated': event.saturated,
    'memory.rerank.usage.requests': usage.requests,
    'memory.rerank.usage.calls': usage.calls,
  };
  if (event.degradationReason !== undefined) {
    attributes['memory.rerank.degradation_reason'] = event.degradationReason;
  }
  if (event.errorCode !== undefined) attributes['memory.rerank.error_code'] = event.errorCode;
  if (usage.inputTokens !== undefined) attributes['memory.rerank.usage.input_tokens'] = usage.inputTokens;
  if (usage.outputTokens !== undefined) attributes['memory.rerank.usage.output_tokens'] = usage.outputTokens;
  if (usage.totalTokens !== undefined) attributes['memory.rerank.usage.total_tokens'] = usage.totalTokens;
  if (failed) attributes['error.type'] = errorType;

  const span = tracer.startSpan('memory.rerank', { kind: SpanKind.INTERNAL, startTime: start, attributes });
  if (failed) span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
  span.end(end);

  const policy = { 'memory.rerank.policy_id': event.policyId };
  instruments.rerankDuration.record(durationMs, { ...policy, 'memory.rerank.outcome': event.outcome });
  if (failed) {
    instruments.failures.add(1, {
      ...policy,
      'memory.rerank.degradation_reason': event.degradationReason ?? 'rerank_failure',
      'error.type': errorType,
    });
  }
  if (event.outcome === 'degraded') {
    instruments.degradations.add(1, {
      ...policy,
      'memory.rerank.degradation_reason': event.degradationReason ?? 'rerank_failure',
    });
  }
  if (event.outcome === 'fallback') instruments.fallbacks.add(1, policy);
  if (event.saturated) instruments.saturations.add(1, policy);
  addPositive(instruments.modelRequests, usage.requests, policy);
  addPositive(instruments.modelCalls, usage.calls, policy);
  addPositive(instruments.tokens, usage.inputTokens, { ...policy, 'token.type': 'input' });
  addPositive(instruments.tokens, usage.outputTokens, { ...policy, 'token.type': 'output' });
}

function createInstruments(meter: Meter): Instruments {
  const counter = (name: string, unit: string, description: string) =>
    meter.createCounter(name, { unit, description });
  return {
    searchDuration: meter.createHistogram('memory.search.duration', {
      unit: 'ms',
      description: 'Duration of memory searches, rerank included.',
    }),
    rerankDuration: meter.createHistogram('memory.rerank.duration', {
      unit: 'ms',
      description: 'Duration of the rerank stage of a search, queue wait included.',
    }),
    failures: counter('memory.rerank.failures', '{failure}', 'Reranks that failed the search.'),
    degradations: counter(
      'memory.rerank.degradations',
      '{degradation}',
      'Reranks that failed and were replaced by the coarse ranks (fail_open).',
    ),
    fallbacks: counter(
      'memory.rerank.fallbacks',
      '{fallback}',
      'Reranks whose model output held no usable rank, so the coarse ranks were used.',
    ),
    saturations: counter(
      'memory.rerank.saturations',
      '{saturation}',
      'Reranks that found no free concurrency slot in time.',
    ),
    modelRequests: counter('memory.rerank.model_requests', '{request}', 'Requests sent to rerank models.'),
    modelCalls: counter('memory.rerank.model_calls', '{call}', 'Logical rerank model operations.'),
    tokens: counter('memory.rerank.tokens', '{token}', 'Rerank model tokens, by token.type, when reported.'),
  };
}

function fixedInstruments(meter: Meter): () => Instruments {
  const instruments = createInstruments(meter);
  return () => instruments;
}

/** Instruments of the current global meter provider, created again when that provider changes. */
function globalInstruments(): () => Instruments {
  let provider: MeterProvider | undefined;
  let instruments: Instruments | undefined;
  return () => {
    const current = metrics.getMeterProvider();
    if (!instruments || current !== provider) {
      provider = current;
      instruments = createInstruments(
        current.getMeter(INSTRUMENTATION_SCOPE_NAME, INSTRUMENTATION_SCOPE_VERSION),
      );
    }
    return instruments;
  };
}

function guard(name: string, work: () => void): void {
  try {
    work();
  } catch (error) {
    diag.error(`@powercontext/observability-otel: ${name} could not be recorded`, error);
  }
}

function addPositive(counter: Counter, value: number | undefined, attributes: Attributes): void {
  if (value !== undefined && Number.isFinite(value) && value > 0) counter.add(value, attributes);
}

function nonNegative(ms: number): number {
  return Number.isFinite(ms) && ms > 0 ? ms : 0;
}

/** The interval [now - durationMs, now] on the clock the OpenTelemetry SDK itself uses. */
function endingNow(durationMs: number): { start: HrTime; end: HrTime } {
  const endMs = performance.timeOrigin + performance.now();
  return { start: toHrTime(endMs - durationMs), end: toHrTime(endMs) };
}

/** Epoch milliseconds as [seconds, nanoseconds]: unambiguous, unlike a bare number TimeInput. */
function toHrTime(epochMs: number): HrTime {
  const seconds = Math.floor(epochMs / 1000);
  const nanos = Math.round((epochMs - seconds * 1000) * 1e6);
  return nanos >= 1e9 ? [seconds + 1, nanos - 1e9] : [seconds, nanos];
}
