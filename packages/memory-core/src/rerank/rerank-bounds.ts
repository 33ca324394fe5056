import { RerankOutOfBoundsError } from '../errors/rerank-out-of-bounds-error.js';

export const RERANK_MAX_CANDIDATES = 100;
export const RERANK_MAX_LIMIT = 50;

/** Every reranker calls this before any model call: a pool of 1..100 candidates and a limit of 1..50. */
export function assertRerankBounds(candidateCount: number, limit: number): void {
  if (!Number.isInteger(candidateCount) || candidateCount < 1 || candidateCount > RERANK_MAX_CANDIDATES) {
    throw new RerankOutOfBoundsError(
      'candidates',
      `pool size must be 1..${RERANK_MAX_CANDIDATES}, got ${candidateCount}`,
    );
  }
  if (!Number.isInteger(limit) || limit < 1 || limit > RERANK_MAX_LIMIT) {
    throw new RerankOutOfBoundsError('limit', `limit must be 1..${RERANK_MAX_LIMIT}, got ${limit}`);
  }
}
