import { untilAborted } from '@powercontext/inference/testing';
import { describe, expect, it } from 'vitest';
import type { DecisionModel } from '../decision.js';
import {
  type DecisionBackend,
  type DecisionModelConformanceOptions,
  decisionModelConformanceSuite,
  describeDecisionModelConformance,
  runDecisionModelConformance,
} from './decision-model-conformance.js';
import { createScriptedDecisionModel } from './scripted-decision-model.js';

/** The in-memory fake: the script plays the model. */
function scriptedModel(backend: DecisionBackend, limits: { timeoutMs: number }) {
  return createScriptedDecisionModel({
    timeoutMs: limits.timeoutMs,
    ...(backend.kind === 'answer' && backend.tokens ? { tokens: backend.tokens } : {}),
    decide(_request, signal) {
      if (backend.kind === 'fail') throw new Error('HTTP 500');
      if (backend.kind === 'hang') return untilAborted(signal);
      return { outcome: backend.outcome, ...(backend.rationale ? { rationale: backend.rationale } : {}) };
    },
  });
}

describeDecisionModelConformance('scripted in-memory decision model', { create: scriptedModel });

describe('the DecisionModel conformance suite itself', () => {
  it('names the RFC section or seed of every rule it checks', () => {
    const unnamed = decisionModelConformanceSuite({ create: scriptedModel }).checks.filter(
      (check) => !/RFC \d{4} "|seed 00[0134]/.test(check.rule),
    );
    expect(unnamed.map((check) => `${check.title} [${check.rule}]`)).toEqual([]);
  });

  const failedTitles = async (create: DecisionModelConformanceOptions['create']) =>
    (await runDecisionModelConformance({ create, patienceMs: 1_000 }))
      .filter((outcome) => !outcome.passed)
      .map((outcome) => outcome.title);

  it('passes the scripted fake on every check', async () => {
    expect(await failedTitles(scriptedModel)).toEqual([]);
  });

  it('fails a backend that degrades by itself instead of failing', async () => {
    const selfDegrading = (backend: DecisionBackend, limits: { timeoutMs: number }): DecisionModel => {
      const inner = scriptedModel(backend, limits);
      return {
        policyId: inner.policyId,
        evaluate: (request, options) =>
          inner.evaluate(request, options).catch((error: unknown) => {
            if (options?.signal?.aborted) throw error;
            return {
              outcome: 'abstain',
              policyId: inner.policyId,
              usage: { requests: 1, calls: 1 },
              usedFallback: true,
            };
          }),
      };
    };
    expect(await failedTitles(selfDegrading)).toEqual([
      'never degrades by itself: an unknown outcome is inference_invalid_output',
      'fails an unreachable backend as inference_unavailable, with the requests sent',
      'bounds each call by its own deadline: inference_timeout',
    ]);
  });

  it('fails a backend whose errors are untyped and carry no spend', async () => {
    const untyped = (backend: DecisionBackend, limits: { timeoutMs: number }): DecisionModel => {
      const inner = scriptedModel(backend, limits);
      return {
        policyId: inner.policyId,
        evaluate: (request, options) =>
          inner.evaluate(request, options).catch((error: unknown) => {
            if (options?.signal?.aborted) throw error;
            throw new Error(`backend failed: ${String(error)}`);
          }),
      };
    };
    const outcomes = await runDecisionModelConformance({ create: untyped, patienceMs: 1_000 });
    const failed = outcomes.filter((outcome) => !outcome.passed);
    expect(failed.map((outcome) => outcome.title)).toContain(
      'inside the fail-open envelope, every failure becomes abstain with usedFallback and the spend',
    );
    expect(failed.find((outcome) => outcome.title.startsWith('fails an unreachable'))!.message).toContain(
      'expected an InferenceError with code inference_unavailable',
    );
  });
});
