import type { LexicalProjectionPolicy } from '../domain/lexical-projection.js';
import type { ChannelCandidate, FusedCandidate, LexicalCandidate } from '../domain/search.js';

/** BM25 parameters the lexical channel ranks with. */
export interface Bm25Parameters {
  k1: number;
  b: number;
  /** BM25+ lower bound added to every matched term's contribution. */
  delta: number;
}

/**
 * Admission and fusion rules of the coarse path, versioned as one object so a change to any rule is
 * a new policy id. Implemented outside the core (see @powercontext/retrieval-rrf).
 */
export interface RetrievalPolicy {
  readonly id: string;
  readonly bm25: Bm25Parameters;
  /** What the lexical index holds for each entry (its words and its neighbours'), applied at write time. */
  readonly lexicalProjection: LexicalProjectionPolicy;
  /** Candidates each channel fetches for a coarse limit. */
  channelFetchLimit(coarseLimit: number): number;
  admitLexical(candidates: readonly LexicalCandidate[], queryTermCount: number): LexicalCandidate[];
  /**
   * The lexical candidates `admitLexical` turned away that the search may still return when nothing
   * at all was admitted (ranks renumbered from 1, in the channel's order). Optional: a policy without
   * it never falls back, and a search under it may answer empty although an entry matches a query term.
   */
  admitLexicalFallback?(candidates: readonly LexicalCandidate[], queryTermCount: number): LexicalCandidate[];
  admitVector(candidates: readonly ChannelCandidate[], minCosine: number): ChannelCandidate[];
  /**
   * Fuses admitted channel lists into at most `limit` candidates, best first, deterministic for equal
   * inputs (ties broken by entry id, then entry version id). Ranking only: the search reads the kept
   * candidates' entries afterwards.
   */
  fuse(
    channels: { fts?: readonly ChannelCandidate[]; vector?: readonly ChannelCandidate[] },
    limit: number,
  ): FusedCandidate[];
}
