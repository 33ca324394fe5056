import {
  DECISION_OUTCOMES,
  type DecisionModel,
  type DecisionOutcome,
  type DecisionRequest,
  type DecisionResult,
} from '@powercontext/decision-model';
import {
  assertRerankBounds,
  coarseFallbackRanks,
  type LogFields,
  type MemoryHit,
  type MemoryRerankDecision,
  type MemoryReranker,
  RerankFailureError,
  type RerankOptions,
  type RerankUsage,
} from '@powercontext/memory-core';
import { DECISION_RERANK_KIND, DECISION_RERANK_POLICY_ID, DECISION_RERANK_QUESTION } from './policy.js';
import { UsageTally, usageOfError } from './usage.js';

/**
 * The log methods this role uses. memory-core's `Logger` fits. Lines carry the policy id, the decision
 * kind, ranks and counters; never query text, candidate text or rationales.
 */
export interface DecisionRerankLogger {
  debug?(event: string, fields?: LogFields): void;
  warn?(event: string, fields?: LogFields): void;
}

export interface DecisionRerankerOptions {
  /**
   * The decision model handle for this role, NOT wrapped in the fail-open envelope: the rerank role is
   * fail-closed. A result that still says `usedFallback: true` fails the rerank.
   */
  decisionModel: DecisionModel;
  /** Outcomes that keep a candidate. Default ['yes', 'abstain']: an abstaining healthy backend keeps evidence. */
  keepOutcomes?: readonly DecisionOutcome[];
  /**
   * Most evaluate() calls in flight at once, started in coarse order. Default 1 (the sequential walk).
   * Higher values change latency and may add calls past the stopping point, never the selection.
   */
  concurrency?: number;
  logger?: DecisionRerankLogger;
}

/** Why a rerank failed closed; written to the warn line. */
type FailureReason = 'evaluate_error' | 'backend_degraded' | 'invalid_outcome';

type Settled = { ok: true; result: DecisionResult } | { ok: false; error: unknown };

/** One started evaluate() call, at coarse position `rank`. */
interface Call {
  readonly controller: AbortController;
  readonly settled: Promise<Settled>;
  outcome?: Settled;
  abortedByUs: boolean;
}

/** A RerankFailureError with the usage of the calls made so far, so the stage can report what was spent. */
export type DecisionRerankFailure = RerankFailureError & { usage: RerankUsage };

/**
 * The decision reranker of the decision-model rerank RFC: a second MemoryReranker behind the RFC 0080
 * seam. Its definition is the sequential walk: for each coarse candidate in order, ask the decision
 * model one keep/drop question; keep the ranks whose outcome is in `keepOutcomes`, in coarse order;
 * stop at the limit-th keep. When nothing is kept, coarse ranks 1..min(limit, n) are used.
 *
 * Fail-closed: a result marked `usedFallback` (a degraded backend, not a verdict), an unknown outcome,
 * or an evaluate() error fails the rerank with a RerankFailureError carrying `usage`; the caller's own
 * abort is rethrown unchanged.
 *
 * With `concurrency` k > 1, up to k calls run ahead of the walk (at most k started and not yet read).
 * Results are read in coarse order, so selection, fallback and failure equal the sequential walk;
 * calls started past the stopping point are aborted, their answers and failures ignored, and their
 * cost still reported. The rerank returns only after every call it started has settled.
 */
export function createDecisionMemoryReranker(options: DecisionRerankerOptions): MemoryReranker {
  const { decisionModel, logger } = options;
  const concurrency = options.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  }
  const keepOutcomes = options.keepOutcomes ?? ['yes', 'abstain'];
  if (keepOutcomes.length === 0 || keepOutcomes.some((outcome) => !DECISION_OUTCOMES.includes(outcome))) {
    throw new RangeError(`keepOutcomes must be a non-empty subset of ${DECISION_OUTCOMES.join(', ')}`);
  }
  const keep = new Set<DecisionOutcome>(keepOutcomes);
  const policyId = DECISION_RERANK_POLICY_ID;
  const baseFields = { policyId, decisionKind: DECISION_RERANK_KIND };

  return {
    policyId,
    async rerank(
      normalizedQuery: string,
      candidates: readonly MemoryHit[],
      limit: number,
      rerankOptions?: RerankOptions,
    ): Promise<MemoryRerankDecision> {
      assertRerankBounds(candidates.length, limit);
      const callerSignal = rerankOptions?.signal;
      callerSignal?.throwIfAborted();
      const candidateCount = candidates.length;
      const evidence = [normalizedQuery];
      const calls: Call[] = [];

      /** Starts the evaluate() call of coarse position `index` (0-based) with its own abort controller. */
      const start = (index: number): void => {
        const controller = new AbortController();
        const request: DecisionRequest = {
          decisionKind: DECISION_RERANK_KIND,
          question: DECISION_RERANK_QUESTION,
          subject: candidates[index]!.text,
          evidence,
        };
        let pending: Promise<DecisionResult>;
        try {
          pending = Promise.resolve(decisionModel.evaluate(request, { signal: controller.signal }));
        } catch (error) {
          pending = Promise.reject(error);
        }
        const call: Call = {
          controller,
          abortedByUs: false,
          settled: pending.then(
            (result): Settled => {
              call.outcome = { ok: true, result };
              return call.outcome;
            },
            (error: unknown): Settled => {
              call.outcome = { ok: false, error };
              return call.outcome;
            },
          ),
        };
        calls.push(call);
      };

      /**
       * Aborts the running calls at positions >= `from`: 'stopped' when the walk no longer needs their
       * answers, 'caller' when the caller's signal aborted (its reason is passed on).
       */
      const abortRunning = (from: number, why: 'stopped' | 'caller'): void => {
        for (const call of calls.slice(from)) {
          if (call.outcome || call.controller.signal.aborted) continue;
          if (why === 'caller') {
            call.controller.abort(callerSignal?.reason);
          } else {
            call.abortedByUs = true;
            call.controller.abort(
              new DOMException('decision rerank no longer needs this answer', 'AbortError'),
            );
          }
        }
      };
      const onCallerAbort = () => abortRunning(0, 'caller');
      callerSignal?.addEventListener('abort', onCallerAbort, { once: true });

      /** Waits until every started call settled, then sums what they reported. */
      const settleAndTally = async (): Promise<RerankUsage> => {
        await Promise.all(calls.map((call) => call.settled));
        const tally = new UsageTally();
        for (const call of calls) {
          if (call.outcome?.ok) tally.add(call.outcome.result.usage);
          else if (call.outcome) tally.add(usageOfError(call.outcome.error));
        }
        return tally.toUsage(calls.length);
      };
      const abortedCount = () => calls.filter((call) => call.abortedByUs).length;

      /** The caller's cancellation: logged without waiting for the aborted calls, then rethrown as is. */
      const cancelled = (error: unknown): unknown => {
        logger?.debug?.('memory.rerank.decision.cancelled', {
          ...baseFields,
          candidateCount,
          limit,
          calls: calls.length,
        });
        return error;
      };

      /** Fail-closed at the `read`-th position: stop the calls after it, wait for them, report the cost. */
      const failClosed = async (
        read: number,
        reason: FailureReason,
        message: string,
        cause?: unknown,
      ): Promise<DecisionRerankFailure> => {
        abortRunning(read, 'stopped');
        const usage = await settleAndTally();
        const code = (cause as { code?: unknown } | undefined)?.code;
        logger?.warn?.('memory.rerank.decision.failed', {
          ...baseFields,
          rank: read,
          reason,
          ...(typeof code === 'string' ? { errorCode: code } : {}),
          candidateCount,
          limit,
          calls: usage.calls,
          requests: usage.requests,
          abortedCalls: abortedCount(),
        });
        const failure = new RerankFailureError(
          policyId,
          message,
          cause === undefined ? {} : { cause },
        ) as DecisionRerankFailure;
        failure.usage = usage;
        return failure;
      };

      try {
        const kept: number[] = [];
        let read = 0;
        while (kept.length < limit && read < candidateCount) {
          if (callerSignal?.aborted) throw cancelled(callerSignal.reason);
          while (calls.length < candidateCount && calls.length - read < concurrency) start(calls.length);
          const outcome = await calls[read]!.settled;
          read += 1;
          if (callerSignal?.aborted) throw cancelled(callerSignal.reason);
          if (!outcome.ok) {
            throw await failClosed(
              read,
              'evaluate_error',
              `decision model failed at rank ${read}`,
              outcome.error,
            );
          }
          const { result } = outcome;
          if (result.usedFallback) {
            throw await failClosed(
              read,
              'backend_degraded',
              `decision backend degraded at rank ${read} (a fail-open answer, not a verdict)`,
            );
          }
          if (!DECISION_OUTCOMES.includes(result.outcome)) {
            throw await failClosed(
              read,
              'invalid_outcome',
              `decision model gave no valid outcome at rank ${read}`,
            );
          }
          if (keep.has(result.outcome)) kept.push(read);
        }
        abortRunning(read, 'stopped');
        const usage = await settleAndTally();
        const usedFallback = kept.length === 0;
        const selectedRanks = usedFallback ? coarseFallbackRanks(candidateCount, limit) : kept;
        logger?.debug?.('memory.rerank.decision.completed', {
          ...baseFields,
          candidateCount,
          limit,
          concurrency,
          keptCount: kept.length,
          readCount: read,
          usedFallback,
          calls: usage.calls,
          requests: usage.requests,
          abortedCalls: abortedCount(),
        });
        return { selectedRanks, usage, discardedRankCount: 0, usedFallback, ignoredAfterLimitCount: 0 };
      } finally {
        callerSignal?.removeEventListener('abort', onCallerAbort);
      }
    },
  };
}
