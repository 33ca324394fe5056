import { PowerContextError } from '@powercontext/memory-core';

/**
 * How rerank evidence fails to fit the candidates it is offered with:
 * - `foreign`: made for another query, another candidate set, or by another policy or model than expected;
 * - `stale`: the same entries, but some text changed since it was scored;
 * - `reordered`: the same candidates in another order (a positional score vector would land on the wrong ones);
 * - `incomplete`: fewer or more candidates, scores or a selection over another count than the set has;
 * - `malformed`: the record breaks its own rules (bad digest, non-finite score, rank out of range, repeated rank).
 */
export type RerankEvidenceMismatch = 'foreign' | 'stale' | 'reordered' | 'incomplete' | 'malformed';

/** Rerank evidence that is not bound to the exact query and ordered candidates it comes with. */
export class RerankEvidenceError extends PowerContextError {
  readonly mismatch: RerankEvidenceMismatch;

  constructor(mismatch: RerankEvidenceMismatch, detail: string) {
    super('rerank_evidence_mismatch', `Rerank evidence rejected (${mismatch}): ${detail}`);
    this.mismatch = mismatch;
  }
}
