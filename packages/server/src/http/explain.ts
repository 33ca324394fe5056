import type { MemoryHit, SearchResult } from '@powercontext/memory-core';
import { WIRE_CHANNELS, type WireChannel } from './wire-channels.js';

/**
 * The redacted explain of one search (a project extension answering RFC 0080's open question). It
 * describes only the hits that were returned: their channel ranks, RRF contributions, coarse rank,
 * whether the reranker chose them and which query terms matched their own words or only their
 * neighbours' (RFC 0007), and how the authority step changed their score (RFC 0014); overall the rerank policy, the pool size, the analysed query terms and the
 * fallback or degradation. Text, ids and scores of candidates that were not returned never appear.
 * The search must have run with `explain: true` for the lexical part; without it, it is null.
 */
export function buildRedactedExplain(result: SearchResult, retrievalPolicyId: string) {
  const trace = result.trace;
  // Keyed by scope and version: in a search of several scopes, ids are only told apart by their scope.
  const key = (hit: MemoryHit) => `${hit.citation.scopeId}\u0000${hit.citation.entryVersionId}`;
  const coarseRanks = new Map<string, number>(
    (trace?.candidates ?? result.hits).map((hit, index) => [key(hit), index + 1]),
  );
  const rerankerChose = trace !== undefined && !trace.usedFallback && trace.degraded === undefined;
  const selected = new Set(trace?.selectedRanks ?? []);
  return {
    retrieval_policy_id: retrievalPolicyId,
    requested_mode: result.requestedMode,
    mode_fallback: result.fallback
      ? { from: result.fallback.from, to: result.fallback.to, reason: result.fallback.reason }
      : null,
    lexical_fallback: result.lexicalFallback
      ? {
          reason: result.lexicalFallback.reason,
          query_term_count: result.lexicalFallback.queryTermCount,
          admitted: result.lexicalFallback.admitted,
        }
      : null,
    lexical_query_terms: result.lexicalQueryTerms ? [...result.lexicalQueryTerms] : null,
    rerank: trace
      ? {
          policy_id: trace.policyId,
          pool_size: trace.candidates.length,
          used_fallback: trace.usedFallback,
          degraded_reason: trace.degraded?.reason ?? null,
        }
      : null,
    multi_scope: result.multiScope
      ? { scope_count: result.multiScope.scopeCount, rerank: result.multiScope.rerank }
      : null,
    hits: result.hits.map((hit) => {
      const coarseRank = coarseRanks.get(key(hit)) ?? 0;
      return {
        scope_id: hit.citation.scopeId,
        scope_rank: hit.scopeRank ?? null,
        entry_version_id: hit.citation.entryVersionId,
        coarse_rank: coarseRank,
        channel_ranks: perChannel(hit.channelRanks, (rank) => rank),
        rrf_contributions: hit.channelContributions
          ? perChannel(hit.channelContributions, (contribution) => contribution)
          : null,
        reranker_selected: trace ? rerankerChose && selected.has(coarseRank) : null,
        lexical: hit.lexicalMatch
          ? { own_terms: [...hit.lexicalMatch.ownTerms], context_terms: [...hit.lexicalMatch.contextTerms] }
          : null,
        authority: hit.authority
          ? {
              fused_score: hit.authority.fusedScore,
              boost: hit.authority.boost,
              pinned_boost: hit.authority.pinnedBoost,
              tag: hit.authority.tag,
              tag_weight: hit.authority.tagWeight,
            }
          : null,
      };
    }),
  };
}

/** A per-channel figure of a hit for every channel the wire names, in their order (RFC 0013). */
function perChannel(
  figures: MemoryHit['channelRanks'],
  value: (figure: number) => number,
): Partial<Record<WireChannel, number>> {
  const out: Partial<Record<WireChannel, number>> = {};
  for (const channel of WIRE_CHANNELS) {
    const figure = figures[channel];
    if (figure !== undefined) out[channel] = value(figure);
  }
  return out;
}
