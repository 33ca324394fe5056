import type { DecisionModel } from '@powercontext/decision-model';
import {
  normalizeQuery,
  QUERY_MAX_CHARS,
  type SearchMemoryRequest,
  type SearchResult,
  type WriteAdvice,
  type WriteAdvisor,
} from '@powercontext/memory-core';

export const WRITE_GATE_QUESTION =
  'Does the subject, a new memory entry, state the same fact as one of the evidence entries, or contradict one of them?';

/** A remember batch may hold 1,000 entries; the gate reviews at most this many of them per write. */
export const WRITE_GATE_MAX_REVIEWED_ENTRIES = 16;

/** How many active entries of a coarse search each new entry is compared with. */
export const WRITE_GATE_COMPARED_ENTRIES = 5;

export interface DecisionWriteAdvisorOptions {
  mode: 'shadow' | 'advisory';
  decisionKind: string;
  /** The write-gate role's handle: fail-open wrapped, so an outage answers abstain. */
  decisionModel: DecisionModel;
  /** A coarse search without reranking. */
  search: (scopeId: string, request: SearchMemoryRequest) => Promise<SearchResult>;
}

/**
 * A real advisory consumer of the decision model: before a remember's compare-and-swap, asks whether
 * each new entry duplicates or contradicts one of the top active entries of a coarse search.
 */
export function createDecisionWriteAdvisor(options: DecisionWriteAdvisorOptions): WriteAdvisor {
  return {
    mode: options.mode,
    async review(scopeId, entries, reviewOptions = {}) {
      const advice: WriteAdvice[] = [];
      for (const [entryIndex, entry] of entries.slice(0, WRITE_GATE_MAX_REVIEWED_ENTRIES).entries()) {
        const query = normalizeQuery(entry.text).slice(0, QUERY_MAX_CHARS);
        const { hits } = await options.search(scopeId, { query, limit: WRITE_GATE_COMPARED_ENTRIES });
        if (hits.length === 0) continue;
        const result = await options.decisionModel.evaluate(
          {
            decisionKind: options.decisionKind,
            question: WRITE_GATE_QUESTION,
            subject: entry.text,
            evidence: hits.map((hit) => hit.text),
          },
          reviewOptions.signal ? { signal: reviewOptions.signal } : {},
        );
        advice.push({
          entryIndex,
          policyId: result.policyId,
          decisionKind: options.decisionKind,
          outcome: result.outcome,
          comparedEntryIds: hits.map((hit) => hit.citation.entryId),
          usedFallback: result.usedFallback,
        });
      }
      return advice;
    },
  };
}
