/**
 * Conformance suite of the `DecisionModel` port (RFC 0004 "The decision-model package" and "The
 * fail-open envelope"; seed 001). Every decision backend runs it unchanged; see CONTRIBUTING.md.
 */
import {
  type ConformanceCheck,
  type ConformanceSuite,
  conform,
  conformAbort,
  conformInferenceError,
  registerConformanceSuite,
  rejectionOf,
  runConformanceSuite,
  settleWithin,
  shown,
} from '@powercontext/inference/testing';
import type { DecisionModel, DecisionRequest, DecisionResult } from '../decision.js';
import { withFailOpen } from '../fail-open.js';

/**
 * How the model behind the decision backend must behave.
 * - `answer`: it answers `outcome` (also an invalid one such as `maybe`) with `rationale` when given,
 *   reporting `tokens` when given and no token counts otherwise.
 * - `fail`: it cannot be reached or answers with a server error (HTTP 500) every time.
 * - `hang`: it never answers.
 */
export type DecisionBackend =
  | { kind: 'answer'; outcome: string; rationale?: string; tokens?: { input: number; output: number } }
  | { kind: 'fail' }
  | { kind: 'hang' };

export interface DecisionModelConformanceOptions {
  /** The raw (unwrapped) decision model of the adapter under test, bounded by `timeoutMs`. */
  create(backend: DecisionBackend, limits: { timeoutMs: number }): DecisionModel | Promise<DecisionModel>;
  cleanup?(): Promise<void> | void;
  /** How long a call may take before a check reports it as hanging. Default 5000 ms. */
  patienceMs?: number;
}

const REQUEST: DecisionRequest = {
  decisionKind: 'memory.conformance',
  question: 'Does the subject state where Alice lives?',
  subject: 'Alice: I moved to Berlin last spring.',
  evidence: ['Where does Alice live?'],
};

export function decisionModelConformanceSuite(options: DecisionModelConformanceOptions): ConformanceSuite {
  const patienceMs = options.patienceMs ?? 5_000;
  const roomy = { timeoutMs: patienceMs * 2 };

  async function evaluateOk(model: DecisionModel, what: string): Promise<DecisionResult> {
    const settled = await settleWithin(
      Promise.resolve().then(() => model.evaluate(REQUEST)),
      patienceMs,
    );
    conform(settled.status !== 'timedOut', `${what}: no answer within ${patienceMs} ms`);
    conform(
      settled.status === 'fulfilled',
      `${what}: evaluate failed: ${settled.status === 'rejected' ? String(settled.reason) : ''}`,
    );
    return settled.value;
  }

  const checks: ConformanceCheck[] = [
    {
      title: 'answers yes, no and abstain as the model did, under its own versioned policy id',
      rule: 'RFC 0004 "The decision-model package"; seed 001',
      async run() {
        for (const outcome of ['yes', 'no', 'abstain']) {
          const model = await options.create(
            { kind: 'answer', outcome, rationale: 'The subject says so.' },
            roomy,
          );
          conform(
            /v\d+/.test(model.policyId),
            `policyId must be versioned (e.g. "acme.decision.v1"), got ${shown(model.policyId)}`,
          );
          const result = await evaluateOk(model, `the answer ${outcome}`);
          conform(
            result.outcome === outcome && result.policyId === model.policyId && result.usedFallback === false,
            `the model answered ${outcome}: expected { outcome: ${outcome}, policyId: ${model.policyId}, usedFallback: false }, got ${shown(result)}`,
          );
          conform(
            result.rationale === 'The subject says so.',
            `the model's rationale must pass through, got ${shown(result.rationale)}`,
          );
        }
      },
    },
    {
      title: 'reports the usage of each call on its own: one call, its requests, the reported tokens',
      rule: 'RFC 0004 "The decision-model package": DecisionResult.usage',
      async run() {
        const model = await options.create(
          { kind: 'answer', outcome: 'yes', tokens: { input: 11, output: 7 } },
          roomy,
        );
        await evaluateOk(model, 'the first evaluate');
        const { usage } = await evaluateOk(model, 'the second evaluate');
        conform(
          usage.calls === 1 && Number.isInteger(usage.requests) && usage.requests >= 1,
          `each evaluate is one call of at least one request, never a running total; the second reported ${shown(usage)}`,
        );
        conform(
          usage.inputTokens === 11 && usage.outputTokens === 7,
          `the model reported 11 input and 7 output tokens, the usage says ${shown(usage)}`,
        );
      },
    },
    {
      title: 'never degrades by itself: an unknown outcome is inference_invalid_output',
      rule: 'RFC 0004 "The decision-model package": the raw backend never degrades',
      async run() {
        const model = await options.create({ kind: 'answer', outcome: 'maybe' }, roomy);
        const error = await rejectionOf(() => model.evaluate(REQUEST), patienceMs, 'the answer "maybe"');
        conformInferenceError(error, 'inference_invalid_output', 'the answer "maybe"');
      },
    },
    {
      title: 'fails an unreachable backend as inference_unavailable, with the requests sent',
      rule: 'RFC 0004 "The decision-model package": errors propagate unchanged',
      async run() {
        const model = await options.create({ kind: 'fail' }, roomy);
        const error = await rejectionOf(() => model.evaluate(REQUEST), patienceMs, 'a failing backend');
        const failure = conformInferenceError(error, 'inference_unavailable', 'a failing backend');
        conform(
          failure.usage!.requests >= 1,
          `the requests sent must be counted, got ${shown(failure.usage)}`,
        );
      },
    },
    {
      title: 'bounds each call by its own deadline: inference_timeout',
      rule: 'RFC 0004 "The decision-model package"; RFC 0003 "Inference"',
      async run() {
        const model = await options.create({ kind: 'hang' }, { timeoutMs: 200 });
        const error = await rejectionOf(
          () => model.evaluate(REQUEST),
          patienceMs,
          'a backend that never answers',
        );
        conformInferenceError(error, 'inference_timeout', 'a backend that never answers (timeout 200 ms)');
      },
    },
    {
      title: "honours the caller's abort, rethrowing the caller's reason",
      rule: 'RFC 0004 "The fail-open envelope": cancellation propagates',
      async run() {
        const model = await options.create({ kind: 'hang' }, roomy);
        await conformAbort((signal) => model.evaluate(REQUEST, { signal }), patienceMs);
        await conformAbort((signal) => withFailOpen(model).evaluate(REQUEST, { signal }), patienceMs);
      },
    },
    {
      title: 'inside the fail-open envelope, every failure becomes abstain with usedFallback and the spend',
      rule: 'RFC 0004 "The fail-open envelope, the one place degradation happens"',
      async run() {
        // The envelope's own timeout only for the hanging backend: when it fires, the abandoned call's
        // spend is invisible to it (RFC 0004, known limit), so the other two run without one.
        for (const [backend, spent] of [
          [{ kind: 'fail' }, true],
          [{ kind: 'answer', outcome: 'maybe' }, true],
          [{ kind: 'hang' }, false],
        ] as const) {
          const model = await options.create(backend, roomy);
          const wrapped = withFailOpen(model, backend.kind === 'hang' ? { timeoutMs: 200 } : {});
          const result = await evaluateOk(wrapped, `the envelope over a ${backend.kind} backend`);
          conform(
            result.outcome === 'abstain' &&
              result.usedFallback === true &&
              result.policyId === model.policyId,
            `the envelope over a ${backend.kind} backend must answer { outcome: abstain, usedFallback: true, policyId: ${model.policyId} }, got ${shown(result)}`,
          );
          conform(
            !spent || result.usage.requests >= 1,
            `the backend's failure must carry the requests it sent (InferenceError.usage), so the envelope can report them; it reported ${shown(result.usage)}`,
          );
        }
        const healthy = await options.create({ kind: 'answer', outcome: 'no' }, roomy);
        const passed = await evaluateOk(withFailOpen(healthy), 'the envelope over a healthy backend');
        conform(
          passed.outcome === 'no' && passed.usedFallback === false,
          `a healthy answer passes the envelope unchanged, got ${shown(passed)}`,
        );
      },
    },
  ];
  return { checks, ...(options.cleanup ? { cleanup: () => options.cleanup?.() } : {}) };
}

export function describeDecisionModelConformance(
  name: string,
  options: DecisionModelConformanceOptions,
): void {
  registerConformanceSuite(`DecisionModel conformance: ${name}`, decisionModelConformanceSuite(options));
}

export function runDecisionModelConformance(options: DecisionModelConformanceOptions) {
  return runConformanceSuite(decisionModelConformanceSuite(options));
}
