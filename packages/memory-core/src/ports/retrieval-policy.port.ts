import type { AuthorityWeights } from '../domain/authority.js';
import type { LexicalProjectionPolicy } from '../domain/lexical-projection.js';
import type { ChannelCandidate, ChannelName, FusedCandidate } from '../domain/search.js';
import type { ChannelResult } from './search-channel.port.js';

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
  /**
   * The channels this policy fuses, in fusion order (RFC 0013). A search runs those of them its mode
   * allows, and a service refuses a policy that names a channel it has no implementation of.
   */
  readonly channels: readonly ChannelName[];
  /** Candidates each channel fetches for a coarse limit. */
  channelFetchLimit(coarseLimit: number): number;
  /**
   * The candidates of one channel's result the policy keeps, in the channel's order, ranks renumbered
   * from 1 (the lexical term rule, the vector threshold, ...). `channel` is one of `channels`.
   */
  admit(channel: ChannelName, result: ChannelResult): ChannelCandidate[];
  /**
   * The candidates `admit` turned away that the search may still return when nothing at all was
   * admitted (ranks renumbered from 1, in the channel's order); undefined or empty when the channel has
   * no such fallback. Optional: a policy without it never falls back, and a search under it may answer
   * empty although an entry matches a query term (RFC 0002, "The lexical admission fallback").
   */
  admitFallback?(channel: ChannelName, result: ChannelResult): ChannelCandidate[] | undefined;
  /**
   * Fuses admitted channel lists (keyed by channel name; a channel that did not run is absent) into at
   * most `limit` candidates, best first, deterministic for equal inputs (ties broken by entry id, then
   * entry version id). Ranking only: the search reads the kept candidates' entries afterwards.
   */
  fuse(
    lists: Readonly<Partial<Record<ChannelName, readonly ChannelCandidate[]>>>,
    limit: number,
  ): FusedCandidate[];
  /**
   * The authority step after fusion (RFC 0014): pinned entries and weighted tags raise the fused score.
   * Absent when every weight is 0, and then a search ranks exactly as without the step. A policy that
   * sets it must carry the weights in its `id`.
   */
  readonly authority?: AuthorityWeights;
}
