import type { MemoryHit } from '../domain/search.js';
import type { MemoryRerankDecision, MemoryReranker, RerankOptions } from '../ports/memory-reranker.port.js';
import { assertRerankBounds } from '../rerank/rerank-bounds.js';
import { selectRanks } from '../rerank/select-ranks.js';

export interface ScriptedRerankerOptions {
  policyId?: string;
  /**
   * Returns the raw ranks to normalize (like a model's output), a full decision, or throws. Default:
   * the coarse order reversed.
   */
  decide?: (
    query: string,
    candidates: readonly MemoryHit[],
    limit: number,
    options: RerankOptions,
  ) => Promise<number[] | MemoryRerankDecision> | number[] | MemoryRerankDecision;
}

export interface ScriptedReranker extends MemoryReranker {
  /** Every call, in order, with the pool it saw. */
  readonly calls: { query: string; candidates: readonly MemoryHit[]; limit: number }[];
}

/**
 * A reranker for tests whose behaviour is set in the constructor; ranks go through `selectRanks`. Like
 * every policy it checks the bounds and the caller's signal before `decide` runs, so it passes the
 * MemoryReranker conformance suite whenever `decide` itself honours the signal.
 */
export function createScriptedReranker(options: ScriptedRerankerOptions = {}): ScriptedReranker {
  const calls: ScriptedReranker['calls'] = [];
  const decide =
    options.decide ??
    ((_query: string, candidates: readonly MemoryHit[]) =>
      candidates.map((_, index) => candidates.length - index));
  return {
    policyId: options.policyId ?? 'test.scripted.v1',
    calls,
    async rerank(query, candidates, limit, rerankOptions = {}) {
      assertRerankBounds(candidates.length, limit);
      rerankOptions.signal?.throwIfAborted();
      calls.push({ query, candidates, limit });
      const answer = await decide(query, candidates, limit, rerankOptions);
      if (!Array.isArray(answer)) return answer;
      const { ignoredAfterLimitCount, ...selection } = selectRanks(answer, candidates.length, limit);
      return { ...selection, ignoredAfterLimitCount, usage: { requests: 1, calls: 1 } };
    },
  };
}

/** A promise that resolves once `count` parties have arrived: proves that many calls ran at once. */
export function createBarrier(count: number) {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    opened,
    arrive(): Promise<void> {
      arrived += 1;
      if (arrived >= count) open();
      return opened;
    },
  };
}
