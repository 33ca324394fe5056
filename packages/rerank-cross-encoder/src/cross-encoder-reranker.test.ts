import {
  InferenceError,
  type RelevanceScore,
  type RelevanceScorer,
  type RelevanceScoringRequest,
} from '@powercontext/inference';
import { type MemoryHit, RerankOutOfBoundsError, RerankStage } from '@powercontext/memory-core';
import { describe, expect, it } from 'vitest';
import { createCrossEncoderReranker } from './cross-encoder-reranker.js';
import { CROSS_ENCODER_DOCUMENT_BUDGET_BYTES, CROSS_ENCODER_POLICY_ID } from './policy.js';

function hit(text: string, index: number): MemoryHit {
  const id = `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`;
  return {
    citation: { scopeId: 'scope', artifactId: id, revision: 1, entryId: id, entryVersionId: id },
    entry: {
      entryId: id,
      entryVersionId: id,
      version: 1,
      previousVersionId: null,
      kind: 'note',
      text,
      contentHash: id,
      revision: 1,
      sources: [],
      position: null,
      metadata: {},
      tags: [],
      pinned: false,
      occurredAt: null,
      state: 'active',
      createdAt: '2026-01-01T00:00:00.000Z',
    },
    text,
    score: 1 / (60 + index),
    matchedBy: ['fts'],
    channelRanks: { fts: index },
    channelScores: { fts: 1 },
  };
}

const POOL = ['alpha', 'bravo', 'charlie', 'delta', 'echo'].map((text, index) => hit(text, index + 1));

function scorer(answer: (request: RelevanceScoringRequest) => RelevanceScore[]) {
  const requests: RelevanceScoringRequest[] = [];
  const fake: RelevanceScorer = {
    modelId: 'openai-compatible:test-reranker',
    async score(request) {
      requests.push(request);
      return {
        results: answer(request),
        usage: { requests: 1, calls: 1, documents: request.documents.length, totalTokens: 42 },
      };
    },
  };
  return { fake, requests };
}

const byScores =
  (...scores: number[]) =>
  () =>
    scores.map((score, index) => ({ index, score })).reverse();

describe('cross-encoder reranker', () => {
  it('scores all candidates in one request and selects the top limit by score, ties by coarse rank', async () => {
    const { fake, requests } = scorer(byScores(0.1, 0.7, 0.9, 0.7, 0.2));
    const reranker = createCrossEncoderReranker({ scorer: fake });
    expect(reranker.policyId).toBe(CROSS_ENCODER_POLICY_ID);
    expect(reranker.modelId).toBe('openai-compatible:test-reranker');
    const decision = await reranker.rerank('which one?', POOL, 3);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.query).toBe('which one?');
    expect(requests[0]!.documents).toEqual(['alpha', 'bravo', 'charlie', 'delta', 'echo']);
    expect(decision).toEqual({
      selectedRanks: [3, 2, 4],
      usage: { requests: 1, calls: 1, documents: 5, totalTokens: 42 },
      discardedRankCount: 0,
      usedFallback: false,
      ignoredAfterLimitCount: 2,
      truncatedRanks: [],
    });
  });

  it('leaves out candidates under the minimum score, without padding', async () => {
    const { fake } = scorer(byScores(-2, 1.5, 0.4, 3, -1));
    const decision = await createCrossEncoderReranker({ scorer: fake, minScore: 0.5 }).rerank('q', POOL, 4);
    expect(decision.selectedRanks).toEqual([4, 2]);
    expect(decision.usedFallback).toBe(false);
    expect(decision.ignoredAfterLimitCount).toBe(0);
  });

  it('falls back to coarse ranks 1..min(limit, n) when no candidate meets the minimum score', async () => {
    const { fake } = scorer((request) =>
      request.documents.map((_, index) => ({ index, score: 0.1 * index })),
    );
    const decision = await createCrossEncoderReranker({ scorer: fake, minScore: 0.9 }).rerank('q', POOL, 3);
    expect(decision).toMatchObject({ selectedRanks: [1, 2, 3], usedFallback: true });
    const small = await createCrossEncoderReranker({ scorer: fake, minScore: 0.9 }).rerank(
      'q',
      POOL.slice(0, 2),
      3,
    );
    expect(small.selectedRanks).toEqual([1, 2]);
  });

  it.each<[string, RelevanceScore[]]>([
    ['a missing index', [0, 1, 2, 3].map((index) => ({ index, score: 1 }))],
    ['a repeated index', [0, 1, 2, 3, 3].map((index) => ({ index, score: 1 }))],
    ['an index out of range', [0, 1, 2, 3, 5].map((index) => ({ index, score: 1 }))],
    ['a negative index', [0, 1, 2, 3, -1].map((index) => ({ index, score: 1 }))],
    [
      'a score that is not a number',
      [0, 1, 2, 3, 4].map((index) => ({ index, score: index === 2 ? Number.NaN : 1 })),
    ],
  ])('rejects an answer with %s as invalid output, with its usage', async (_name, results) => {
    const { fake } = scorer(() => results);
    const failure = await createCrossEncoderReranker({ scorer: fake })
      .rerank('q', POOL, 3)
      .catch((error: unknown) => error);
    expect(InferenceError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({
      code: 'inference_invalid_output',
      usage: { requests: 1, calls: 1, documents: 5, totalTokens: 42 },
    });
  });

  it('under a fail_open stage, invalid output degrades to coarse ranks with reason invalid_output', async () => {
    const { fake } = scorer(() => [{ index: 0, score: 1 }]);
    const stage = new RerankStage({
      reranker: createCrossEncoderReranker({ scorer: fake }),
      failurePolicy: 'fail_open',
    });
    const { hits, trace } = await stage.run('q', POOL, 2, { coarseMs: 0 });
    expect(hits).toEqual([POOL[0], POOL[1]]);
    expect(trace.degraded).toEqual({ reason: 'invalid_output', errorCode: 'inference_invalid_output' });
    expect(trace.modelId).toBe('openai-compatible:test-reranker');
    expect(trace.usage).toEqual({ requests: 1, calls: 1, documents: 5, totalTokens: 42 });
  });

  it('cuts long candidate texts to the policy budget on a character boundary and lists their ranks', async () => {
    const long = 'é'.repeat(CROSS_ENCODER_DOCUMENT_BUDGET_BYTES); // 2 bytes each
    const { fake, requests } = scorer(byScores(1, 2));
    const decision = await createCrossEncoderReranker({ scorer: fake }).rerank(
      'q',
      [hit('short', 1), hit(long, 2)],
      2,
    );
    expect(Buffer.byteLength(requests[0]!.documents[1]!, 'utf8')).toBe(CROSS_ENCODER_DOCUMENT_BUDGET_BYTES);
    expect(requests[0]!.documents[1]).toBe('é'.repeat(CROSS_ENCODER_DOCUMENT_BUDGET_BYTES / 2));
    expect(decision.truncatedRanks).toEqual([2]);
  });

  it('passes the abort signal on and checks the bounds before any call', async () => {
    const { fake, requests } = scorer(byScores(1, 2, 3, 4, 5));
    const reranker = createCrossEncoderReranker({ scorer: fake });
    const controller = new AbortController();
    await reranker.rerank('q', POOL, 1, { signal: controller.signal });
    expect(requests[0]!.signal).toBe(controller.signal);
    await expect(reranker.rerank('q', POOL, 0)).rejects.toBeInstanceOf(RerankOutOfBoundsError);
    await expect(reranker.rerank('q', [], 1)).rejects.toBeInstanceOf(RerankOutOfBoundsError);
    expect(requests).toHaveLength(1);
    expect(() => createCrossEncoderReranker({ scorer: fake, minScore: Number.NaN })).toThrow(RangeError);
  });
});
