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

/** The entry text as a search query: normalized, cut to the query limit on a code point boundary. */
function queryFrom(text: string): string {
  let query = '';
  for (const codePoint of normalizeQuery(text)) {
    if (query.length + codePoint.length > QUERY_MAX_CHARS) break;
    query += codePoint;
  }
  return query;
}

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
    // Entries are reviewed in parallel, so a silent backend delays a write by about one decision
    // timeout (the fail-open envelope's), not one per entry.
    async review(scopeId, entries, reviewOptions = {}) {
      const reviewed = await Promise.all(
        entries.slice(0, WRITE_GATE_MAX_REVIEWED_ENTRIES).map(async (entry, entryIndex) => {
          const { hits } = await options.search(scopeId, {
            query: queryFrom(entry.text),
            limit: WRITE_GATE_COMPARED_ENTRIES,
          });
          if (hits.length === 0) return undefined;
          const result = await options.decisionModel.evaluate(
            {
              decisionKind: options.decisionKind,
              question: WRITE_GATE_QUESTION,
              subject: entry.text,
              evidence: hits.map((hit) => hit.text),
            },
            reviewOptions.signal ? { signal: reviewOptions.signal } : {},
          );
          return {
            entryIndex,
            policyId: result.policyId,
            decisionKind: options.decisionKind,
            outcome: result.outcome,
            comparedEntryIds: hits.map((hit) => hit.citation.entryId),
            usedFallback: result.usedFallback,
          } satisfies WriteAdvice;
        }),
      );
      return reviewed.filter((advice) => advice !== undefined);
    },
  };
}
