// packages/rerank-http/src/http-reranker.ts
import { InferenceError } from '@powercontext/inference';
import {
  assertRerankBounds,
  coarseFallbackRanks,
  type MemoryReranker,
  type RerankOptions,
} from '@powercontext/memory-core';

export interface HttpRerankerOptions {
  baseUrl: string; // e.g. http://127.0.0.1:8080/v1; the adapter posts to <baseUrl>/rerank
  model: string;
  timeoutMs?: number; // default 10 000
  minScore?: number; // candidates scoring below it are not selected; default 0
}

export function createHttpReranker(options: HttpRerankerOptions): MemoryReranker {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const minScore = options.minScore ?? 0;
  return {
    policyId: 'example.rerank.http.v1',
    modelId: `http:${options.model}`,
    async rerank(query, candidates, limit, rerankOptions: RerankOptions = {}) {
      // 1. Bounds first: a pool outside 1..100 or a limit outside 1..50 never reaches the server.
      assertRerankBounds(candidates.length, limit);
      const caller = rerankOptions.signal;
      caller?.throwIfAborted();
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = caller ? AbortSignal.any([caller, timeout]) : timeout;
      const usage = { requests: 1, calls: 1, documents: candidates.length };

      let body: { results?: { index: number; relevance_score: number }[] };
      try {
        const response = await fetch(`${options.baseUrl}/rerank`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: options.model, query, documents: candidates.map((hit) => hit.text) }),
          signal,
        });
        if (!response.ok)
          throw new InferenceError('inference_unavailable', `HTTP ${response.status}`, { usage });
        body = (await response.json()) as typeof body;
      } catch (error) {
        // 2. The caller's abort is rethrown as is; everything else becomes a typed InferenceError.
        if (caller?.aborted) throw caller.reason;
        if (timeout.aborted) {
          throw new InferenceError('inference_timeout', `No answer within ${timeoutMs} ms`, {
            cause: error,
            usage,
          });
        }
        if (InferenceError.isInstance(error)) throw error;
        throw new InferenceError('inference_unavailable', String(error), { cause: error, usage });
      }

      const scores = new Map<number, number>();
      for (const { index, relevance_score: score } of body.results ?? []) {
        if (!Number.isInteger(index) || index < 0 || index >= candidates.length || !Number.isFinite(score)) {
          throw new InferenceError('inference_invalid_output', `Invalid result for index ${index}`, {
            usage,
          });
        }
        scores.set(index, score);
      }
      const kept = [...scores]
        .filter(([, score]) => score >= minScore)
        .sort((a, b) => b[1] - a[1] || a[0] - b[0]);
      // 3. Coarse fallback only when nothing qualifies; 4. otherwise ranks only, never padded.
      if (kept.length === 0) {
        return {
          selectedRanks: coarseFallbackRanks(candidates.length, limit),
          usage,
          discardedRankCount: 0,
          usedFallback: true,
        };
      }
      return {
        selectedRanks: kept.slice(0, limit).map(([index]) => index + 1),
        usage,
        discardedRankCount: 0,
        usedFallback: false,
        ignoredAfterLimitCount: Math.max(0, kept.length - limit),
      };
    },
  };
}
