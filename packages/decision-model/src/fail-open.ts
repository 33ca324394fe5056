import {
  InferenceError,
  type InferenceErrorCode,
  type InferenceUsage,
  raceAbort,
} from '@powercontext/inference';
import type { DecisionModel, DecisionRequest, DecisionResult, EvaluateOptions } from './decision.js';

/** Fields of a structured log event. They never carry question, subject or evidence text. */
export type DecisionLogFields = Record<string, string | number | boolean | undefined>;

/**
 * Where the fail-open envelope reports a degradation. Structurally a subset of memory-core's Logger,
 * so a runtime passes its own logger without this package depending on memory-core.
 */
export interface DecisionLogger {
  warn(event: string, fields: DecisionLogFields): void;
}

/** The event the envelope logs, once, for every failure it turns into `abstain`. */
export const DECISION_FAIL_OPEN_EVENT = 'decision.fail_open';

/**
 * Why the envelope answered in place of the backend: the InferenceError code, `timeout` when its own
 * `timeoutMs` passed, `error` for anything else (another error, or an abort the caller did not ask for).
 */
export type FailOpenReason = InferenceErrorCode | 'timeout' | 'error';

export interface FailOpenOptions {
  /**
   * Deadline of one `evaluate` in milliseconds, above 0 and at most 2^31 - 1 (a fraction is rounded up
   * to the next millisecond). The wrapped model gets it as part of its abort signal; when the model
   * ignores the signal the envelope answers anyway.
   * Default: no deadline of its own (the backend's adapter still bounds its calls).
   */
  timeoutMs?: number;
  /** Receives one `decision.fail_open` warning per degraded evaluate. Default: drops everything. */
  logger?: DecisionLogger;
}

/** What the envelope reports as spent when the failure carries no usage: one call, no known request. */
const UNKNOWN_SPEND: Readonly<InferenceUsage> = Object.freeze({ requests: 0, calls: 1 });

/** Largest delay a Node timer accepts; longer ones silently fire after 1 ms. */
const MAX_TIMEOUT_MS = 2_147_483_647;

const FAIL_OPEN_MARKER = Symbol.for('powercontext.decision-model.fail-open');

const noopLogger: DecisionLogger = { warn: () => {} };

/**
 * The one fail-open envelope of the decision port, for advisory consumers (a role that declared
 * `DecisionFailurePolicy.failOpen`, the default). Fail-closed roles use the unwrapped model instead of
 * a second degradation path.
 *
 * - Success passes through unchanged, the same result object.
 * - Cancellation propagates: when the caller's own signal aborts (before or during the call), the
 *   envelope rejects with the caller's abort reason and logs nothing.
 * - Every other failure becomes `{ outcome: 'abstain', usedFallback: true }` under the wrapped
 *   model's policy id: backend errors, its own `timeoutMs`, and aborts the caller did not cause. The
 *   usage is the failure's own when it is an InferenceError that carries one (the requests actually
 *   sent), else one call and no known request. One `decision.fail_open` warning is logged with the
 *   decision kind, the policy id and the reason, never request text. A logger that throws is ignored.
 *
 * The wrapper keeps the wrapped model's `policyId` and is marked, so `isFailOpenWrapped` can tell it
 * from a raw backend. Throws a RangeError for an invalid `timeoutMs`.
 */
export function withFailOpen(model: DecisionModel, options: FailOpenOptions = {}): DecisionModel {
  const timeoutMs = checkedTimeout(options.timeoutMs);
  const logger = options.logger ?? noopLogger;
  const { policyId } = model;

  async function evaluate(
    request: DecisionRequest,
    evaluateOptions?: EvaluateOptions,
  ): Promise<DecisionResult> {
    const callerSignal = evaluateOptions?.signal;
    callerSignal?.throwIfAborted();
    const timeoutSignal = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs);
    const signal = joinSignals(callerSignal, timeoutSignal);

    try {
      const work = start(model, request, signal === undefined ? {} : { signal });
      return await (signal === undefined ? work : raceAbort(work, signal));
    } catch (error) {
      if (callerSignal?.aborted) throw callerSignal.reason;
      const reason: FailOpenReason = timeoutSignal?.aborted
        ? 'timeout'
        : InferenceError.isInstance(error)
          ? error.code
          : 'error';
      const spent = InferenceError.isInstance(error) ? error.usage : undefined;
      warn(logger, { decisionKind: request.decisionKind, policyId, reason });
      return { outcome: 'abstain', policyId, usage: { ...(spent ?? UNKNOWN_SPEND) }, usedFallback: true };
    }
  }

  const envelope: DecisionModel & { readonly [FAIL_OPEN_MARKER]: true } = {
    [FAIL_OPEN_MARKER]: true,
    policyId,
    evaluate,
  };
  return envelope;
}

/** True when `model` is a `withFailOpen` envelope (also one made by another copy of this package). */
export function isFailOpenWrapped(model: DecisionModel): boolean {
  return (
    typeof model === 'object' &&
    model !== null &&
    (model as unknown as Record<symbol, unknown>)[FAIL_OPEN_MARKER] === true
  );
}

function checkedTimeout(timeoutMs: number | undefined): number | undefined {
  if (timeoutMs === undefined) return undefined;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > MAX_TIMEOUT_MS) {
    throw new RangeError(
      `timeoutMs must be a number above 0 and at most ${MAX_TIMEOUT_MS}, got ${timeoutMs}`,
    );
  }
  // Rounded up, so a value computed from seconds (1.1 * 1000 = 1100.0000000000002) is not refused.
  return Math.ceil(timeoutMs);
}

function joinSignals(caller: AbortSignal | undefined, timeout: AbortSignal | undefined) {
  if (caller && timeout) return AbortSignal.any([caller, timeout]);
  return caller ?? timeout;
}

/** The wrapped model's evaluate as a promise, also when it throws synchronously. */
function start(model: DecisionModel, request: DecisionRequest, options: EvaluateOptions) {
  try {
    return model.evaluate(request, options);
  } catch (error) {
    return Promise.reject(error);
  }
}

function warn(logger: DecisionLogger, fields: DecisionLogFields): void {
  try {
    logger.warn(DECISION_FAIL_OPEN_EVENT, fields);
  } catch {
    // Logging is best effort: a broken logger must not turn a fail-open answer into a failure.
  }
}
