import { InferenceError } from '@powercontext/inference';
import { createAiSdkRelevanceScorer, createRerankEndpointModel } from '@powercontext/inference-ai-sdk';
import {
  type LoopbackServer,
  type Responder,
  rerankResponder,
  sendJson,
  startLoopbackServer,
} from '@powercontext/inference-ai-sdk/testing';
import type { MemoryHit } from '@powercontext/memory-core';
import { afterEach, describe, expect, it } from 'vitest';
import { createCrossEncoderReranker } from './cross-encoder-reranker.js';

// The whole adapter path over real HTTP: policy -> RelevanceScorer -> AI SDK rerank() -> endpoint model
// -> fetch -> a loopback server speaking the rerank protocol of llama.cpp and vLLM.
const TEXTS = [
  'Tomás: Slugs ate the lettuce seedlings in bed four.',
  'Priya: The council approved the Alder Street lot for a community garden.',
  'Priya: The topsoil delivery cost 320 euros in April.',
  'Tomás: The council also approved a water tap for the garden lot.',
];
const POOL = TEXTS.map(
  (text, index) => ({ text, citation: { entryId: `e${index}` } }) as unknown as MemoryHit,
);
const QUERY = 'what did the council approve for the garden';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function rerankerFor(respond: Responder, timeoutSeconds = 2) {
  server = await startLoopbackServer(respond);
  const scorer = createAiSdkRelevanceScorer({
    model: createRerankEndpointModel({ model: 'bge-reranker-v2-m3', baseUrl: server.baseUrl }),
    modelId: 'openai-compatible:bge-reranker-v2-m3',
    timeoutSeconds,
    maxRequests: 2,
  });
  return createCrossEncoderReranker({ scorer });
}

async function failureOf(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(InferenceError.isInstance(error)).toBe(true);
  return error as InferenceError;
}

describe('cross-encoder reranker over a rerank endpoint', () => {
  it('selects the best-scored candidates, ties by coarse rank, with usage counted', async () => {
    const reranker = await rerankerFor(rerankResponder());
    const decision = await reranker.rerank(QUERY, POOL, 2);
    // Shared query words per rank: 1, 4, 1, 4. Ranks 2 and 4 tie and keep their coarse order.
    expect(decision.selectedRanks).toEqual([2, 4]);
    expect(decision.usedFallback).toBe(false);
    expect(decision.usage).toEqual({ requests: 1, calls: 1, documents: 4, inputTokens: 20, totalTokens: 20 });
    expect(server!.requests[0]!.body).toMatchObject({ top_n: 4, documents: TEXTS, query: QUERY });
  });

  it.each<[string, Responder]>([
    ['a partial answer', rerankResponder(undefined, { results: (results) => results.slice(0, 3) })],
    [
      'a repeated index',
      rerankResponder(undefined, { results: (results) => [...results.slice(0, 3), results[0]!] }),
    ],
    [
      'an out-of-range index',
      rerankResponder(undefined, {
        results: (results) => [...results.slice(0, 3), { index: 4, relevance_score: 1 }],
      }),
    ],
  ])('treats %s as invalid output', async (_name, respond) => {
    const reranker = await rerankerFor(respond);
    const error = await failureOf(reranker.rerank(QUERY, POOL, 2));
    expect(error.code).toBe('inference_invalid_output');
    expect(error.usage).toMatchObject({ requests: 1, calls: 1, documents: 4 });
  });

  it('times out when the endpoint does not answer', async () => {
    const reranker = await rerankerFor(() => {}, 0.2);
    expect((await failureOf(reranker.rerank(QUERY, POOL, 2))).code).toBe('inference_timeout');
  });

  it('reports a 500 as unavailable after the retry', async () => {
    const reranker = await rerankerFor((_request, response) =>
      sendJson(response, 500, { error: 'model crashed' }, { 'retry-after-ms': '5' }),
    );
    const error = await failureOf(reranker.rerank(QUERY, POOL, 2));
    expect(error.code).toBe('inference_unavailable');
    expect(error.usage).toEqual({ requests: 2, calls: 1, documents: 8 });
  });
});
