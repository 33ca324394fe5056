import { describe, expect, it } from 'vitest';
import type { RelevanceScorer } from '../relevance-scorer.port.js';
import {
  describeRelevanceScorerConformance,
  type RelevanceScorerConformanceOptions,
  relevanceScorerConformanceSuite,
  runRelevanceScorerConformance,
  type ScorerBackend,
} from './relevance-scorer-conformance.js';
import { untilAborted } from './scripted-call.js';
import { createScriptedRelevanceScorer } from './scripted-relevance-scorer.js';

/** The in-memory fake: the script plays the endpoint, answering best first like rerank servers. */
function scriptedScorer(backend: ScorerBackend, limits: { timeoutMs: number }) {
  return createScriptedRelevanceScorer({
    modelId: 'scripted:cross-encoder',
    timeoutMs: limits.timeoutMs,
    ...(backend.kind === 'score' && backend.inputTokens !== undefined
      ? { inputTokens: backend.inputTokens }
      : {}),
    answer(request, signal) {
      if (backend.kind === 'fail') throw new Error('HTTP 500');
      if (backend.kind === 'hang') return untilAborted(signal);
      if (backend.kind === 'invalid') return [{ index: request.documents.length, score: 1 }];
      return request.documents
        .map((document, index) => ({ index, score: backend.scoreOf(document, index) }))
        .sort((a, b) => b.score - a.score);
    },
  });
}

describeRelevanceScorerConformance('scripted in-memory scorer', { create: scriptedScorer });

describe('the RelevanceScorer conformance suite itself', () => {
  it('names the RFC section or seed of every rule it checks', () => {
    const unnamed = relevanceScorerConformanceSuite({ create: scriptedScorer }).checks.filter(
      (check) => !/RFC \d{4} "|seed 00[0134]/.test(check.rule),
    );
    expect(unnamed.map((check) => `${check.title} [${check.rule}]`)).toEqual([]);
  });

  const failedTitles = async (create: RelevanceScorerConformanceOptions['create']) =>
    (await runRelevanceScorerConformance({ create, patienceMs: 1_000 }))
      .filter((outcome) => !outcome.passed)
      .map((outcome) => outcome.title);

  it('passes the scripted fake on every check', async () => {
    expect(await failedTitles(scriptedScorer)).toEqual([]);
  });

  it('fails a scorer that numbers results by their place in the answer instead of the input index', async () => {
    const renumbering = (backend: ScorerBackend, limits: { timeoutMs: number }): RelevanceScorer => {
      const inner = scriptedScorer(backend, limits);
      return {
        modelId: inner.modelId,
        async score(request) {
          const { results, usage } = await inner.score(request);
          return { results: results.map((result, place) => ({ ...result, index: place })), usage };
        },
      };
    };
    const outcomes = await runRelevanceScorerConformance({ create: renumbering, patienceMs: 1_000 });
    const failed = outcomes.filter((outcome) => !outcome.passed);
    expect(failed.map((outcome) => outcome.title)).toEqual([
      "returns each document's score under its own input index",
    ]);
    expect(failed[0]!.message).toContain('document 0 was scored 0.25 by the model');
  });

  it('fails a scorer that reports unknown tokens as 0', async () => {
    const zeroing = (backend: ScorerBackend, limits: { timeoutMs: number }): RelevanceScorer => {
      const inner = scriptedScorer(backend, limits);
      return {
        modelId: inner.modelId,
        async score(request) {
          const result = await inner.score(request);
          return { ...result, usage: { inputTokens: 0, ...result.usage } };
        },
      };
    };
    expect(await failedTitles(zeroing)).toEqual([
      'reports one call, the requests and the documents sent, and only reported tokens',
    ]);
  });
});
