import { authorityAdjustment } from '../domain/authority.js';
import type { MemoryHit } from '../domain/search.js';
import type { RetrievalPolicy } from '../ports/retrieval-policy.port.js';

/**
 * How many fused candidates a search keeps before it reads their entries: the coarse limit, or, under
 * a policy with authority weights, every fused candidate, so that a pinned or weighted entry that fused
 * below the coarse limit can still rise into it (RFC 0014, "Authority after fusion").
 */
export function fusionPoolLimit(policy: RetrievalPolicy, coarseLimit: number): number {
  return policy.authority ? Number.POSITIVE_INFINITY : coarseLimit;
}

/**
 * The authority step after fusion: each hit's score becomes fused x (1 + boost) with the boost of its
 * entry's pinned status and tags, the hits are sorted by it (ties by entry id, then entry version id,
 * as fusion breaks them) and the first `limit` kept, each recording its adjustment. Without authority
 * weights on the policy the hits are returned as they came, untouched.
 */
export function applyAuthority(
  policy: RetrievalPolicy,
  hits: readonly MemoryHit[],
  limit: number,
): MemoryHit[] {
  const weights = policy.authority;
  if (!weights) return [...hits];
  return hits
    .map((hit) => {
      const authority = authorityAdjustment(weights, hit.entry, hit.score);
      return { ...hit, score: hit.score * (1 + authority.boost), authority };
    })
    .sort(
      (a, b) =>
        b.score - a.score ||
        compare(a.citation.entryId, b.citation.entryId) ||
        compare(a.citation.entryVersionId, b.citation.entryVersionId),
    )
    .slice(0, limit);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
