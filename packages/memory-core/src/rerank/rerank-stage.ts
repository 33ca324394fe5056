import type { MemoryHit, RerankDegradationReason, RerankTrace } from '../domain/search.js';
import { PowerContextError } from '../errors/powercontext-error.js';
import { RerankDeadlineError } from '../errors/rerank-deadline-error.js';
import { RerankSaturatedError } from '../errors/rerank-saturated-error.js';
import type { Logger } from '../ports/logger.port.js';
import type { MemoryRerankDecision, MemoryReranker } from '../ports/memory-reranker.port.js';
import type { SearchObserver } from '../ports/search-observer.port.js';
import { ConcurrencyGate } from './concurrency-gate.js';
import { coarseFallbackRanks } from './select-ranks.js';
import { validateDecision } from './validate-decision.js';

export type RerankFailurePolicy = 'fail_closed' | 'fail_open';

export interface RerankStageOptions {
  reranker: MemoryReranker;
  /** Coarse pool size c of RFC 0080, 1..100. Default 30. */
  candidateLimit?: number;
  /** fail_closed (RFC 0080, default): errors propagate. fail_open: coarse ranks with `degraded` in the trace. */
  failurePolicy?: RerankFailurePolicy;
  /** Concurrent reranks across all searches. Default 8. */
  maxInFlight?: number;
  /** How long a search waits for a free slot before it is saturated. Default 1000 ms. */
  queueTimeoutMs?: number;
  /** Bound on the whole stage of one search, queue wait included. Default: none (the model's own timeout). */
  deadlineMs?: number;
}

const CODE_TO_REASON: Record<string, RerankDegradationReason> = {
  inference_timeout: 'timeout',
  inference_unavailable: 'unavailable',
  inference_invalid_output: 'invalid_output',
  rerank_saturated: 'saturated',
  rerank_deadline: 'deadline',
};

/** Steps 6-8 of RFC 0080 around one reranker: gate, deadline, decision check, resolution and trace. */
export class RerankStage {
  readonly reranker: MemoryReranker;
  readonly candidateLimit: number;
  readonly failurePolicy: RerankFailurePolicy;
  readonly queueTimeoutMs: number;
  readonly deadlineMs: number | undefined;
  readonly #gate: ConcurrencyGate;

  constructor(options: RerankStageOptions) {
    this.reranker = options.reranker;
    this.candidateLimit = options.candidateLimit ?? 30;
    this.failurePolicy = options.failurePolicy ?? 'fail_closed';
    this.queueTimeoutMs = options.queueTimeoutMs ?? 1_000;
    this.deadlineMs = options.deadlineMs;
    this.#gate = new ConcurrencyGate(options.maxInFlight ?? 8);
  }

  get inFlight(): number {
    return this.#gate.inFlight;
  }

  /** Reranks a non-empty coarse pool and returns the selected original hit objects with the trace. */
  async run(
    query: string,
    pool: readonly MemoryHit[],
    limit: number,
    context: { coarseMs: number; signal?: AbortSignal; observer?: SearchObserver; logger?: Logger },
  ): Promise<{ hits: MemoryHit[]; trace: RerankTrace }> {
    const { policyId } = this.reranker;
    const start = { policyId, candidateCount: pool.length, limit };
    context.observer?.rerankStarted?.(start);
    const began = performance.now();
    const deadline = this.#deadline(context.signal);
    let queueWaitMs = 0;
    try {
      const release = await this.#gate.acquire(this.queueTimeoutMs, deadline.signal);
      queueWaitMs = performance.now() - began;
      if (!release) {
        context.signal?.throwIfAborted();
        throw deadline.expired()
          ? new RerankDeadlineError(this.deadlineMs!)
          : new RerankSaturatedError(this.#gate.maxInFlight, this.queueTimeoutMs);
      }
      // Through a promise chain, so a reranker that throws synchronously or returns a plain value still
      // releases its slot.
      const call = Promise.resolve().then(() =>
        this.reranker.rerank(query, pool, limit, { signal: deadline.signal }),
      );
      void call.finally(release).catch(() => {});
      const decision = await deadline.race(call);
      validateDecision(policyId, decision, pool.length, limit);
      const trace = this.#trace(pool, decision, {
        coarseMs: context.coarseMs,
        queueWaitMs,
        rerankMs: performance.now() - began,
      });
      context.observer?.rerankEnded?.({
        ...start,
        outcome: decision.usedFallback ? 'fallback' : 'selected',
        selectedCount: decision.selectedRanks.length,
        discardedRankCount: decision.discardedRankCount,
        queueWaitMs,
        durationMs: trace.latencies.rerankMs,
        saturated: false,
        usage: decision.usage,
      });
      return { hits: decision.selectedRanks.map((rank) => pool[rank - 1]!), trace };
    } catch (error) {
      const failure =
        deadline.expired() && !context.signal?.aborted ? new RerankDeadlineError(this.deadlineMs!) : error;
      const code = (failure as { code?: unknown }).code;
      const reason = typeof code === 'string' ? (CODE_TO_REASON[code] ?? 'rerank_failure') : 'rerank_failure';
      const usage = usageOf(failure);
      const degrade =
        this.failurePolicy === 'fail_open' &&
        !context.signal?.aborted &&
        !(PowerContextError.isInstance(failure) && failure.code === 'reranker_defect');
      context.observer?.rerankEnded?.({
        ...start,
        outcome: degrade ? 'degraded' : 'failed',
        selectedCount: 0,
        discardedRankCount: 0,
        degradationReason: reason,
        ...(typeof code === 'string' ? { errorCode: code } : {}),
        queueWaitMs,
        durationMs: performance.now() - began,
        saturated: reason === 'saturated',
        usage,
      });
      context.logger?.warn(degrade ? 'memory.rerank.degraded' : 'memory.rerank.failed', {
        policyId,
        reason,
        ...(typeof code === 'string' ? { errorCode: code } : {}),
        candidateCount: pool.length,
        failurePolicy: this.failurePolicy,
        cancelled: context.signal?.aborted === true,
      });
      if (!degrade) throw failure;
      const selectedRanks = coarseFallbackRanks(pool.length, limit);
      const trace: RerankTrace = {
        policyId,
        ...this.#modelId(),
        candidates: [...pool],
        selectedRanks,
        discardedRankCount: 0,
        ignoredAfterLimitCount: 0,
        usedFallback: false,
        truncatedRanks: [],
        degraded: { reason, ...(typeof code === 'string' ? { errorCode: code } : {}) },
        latencies: { coarseMs: context.coarseMs, queueWaitMs, rerankMs: performance.now() - began },
        usage,
      };
      return { hits: selectedRanks.map((rank) => pool[rank - 1]!), trace };
    } finally {
      deadline.dispose();
    }
  }

  #trace(
    pool: readonly MemoryHit[],
    decision: MemoryRerankDecision,
    latencies: RerankTrace['latencies'],
  ): RerankTrace {
    return {
      policyId: this.reranker.policyId,
      ...this.#modelId(),
      candidates: [...pool],
      selectedRanks: [...decision.selectedRanks],
      discardedRankCount: decision.discardedRankCount,
      ignoredAfterLimitCount: decision.ignoredAfterLimitCount ?? 0,
      usedFallback: decision.usedFallback,
      truncatedRanks: [...(decision.truncatedRanks ?? [])],
      latencies,
      usage: { ...decision.usage },
    };
  }

  #modelId(): { modelId?: string } {
    const { modelId } = this.reranker;
    return typeof modelId === 'string' ? { modelId } : {};
  }

  /** One abort signal for the stage: the caller's cancellation or the deadline, whichever comes first. */
  #deadline(callerSignal: AbortSignal | undefined) {
    const controller = new AbortController();
    let expired = false;
    const onCallerAbort = () => controller.abort(callerSignal?.reason);
    callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
    if (callerSignal?.aborted) onCallerAbort();
    const deadlineMs = this.deadlineMs;
    let rejectRace: (reason: unknown) => void = () => {};
    const racer = new Promise<never>((_, reject) => {
      rejectRace = reject;
    });
    racer.catch(() => {});
    const timer =
      deadlineMs === undefined
        ? undefined
        : setTimeout(() => {
            expired = true;
            const error = new RerankDeadlineError(deadlineMs);
            controller.abort(error);
            rejectRace(error);
          }, deadlineMs);
    controller.signal.addEventListener('abort', () => rejectRace(controller.signal.reason), { once: true });
    return {
      signal: controller.signal,
      expired: () => expired,
      /** Settles at the deadline even when a reranker ignores its abort signal. */
      race: <T>(work: Promise<T>) => Promise.race([work, racer]),
      dispose: () => {
        clearTimeout(timer);
        callerSignal?.removeEventListener('abort', onCallerAbort);
      },
    };
  }
}

function usageOf(error: unknown): RerankTrace['usage'] {
  const usage = (error as { usage?: RerankTrace['usage'] } | undefined)?.usage;
  return usage && Number.isInteger(usage.requests) ? { ...usage } : { requests: 0, calls: 0 };
}
