import type { EntryFilter } from '../domain/entry-filter.js';
import type { ChannelCandidate, ChannelName, LexicalMatchReport } from '../domain/search.js';
import type { EmbeddingProfile } from './embedder.port.js';
import type { ScopeAtRevision } from './scopes-reads.port.js';

/**
 * What a channel reads of the query. A `text` channel runs in the `fts` and `hybrid` modes; an
 * `embedding` channel needs the query's vector and runs in the `vector` and `hybrid` modes.
 */
export type ChannelInput = 'text' | 'embedding';

/** One channel's share of a search: the query, where it reads, and how many candidates it may return. */
export interface ChannelQuery {
  scopeId: string;
  /** The revision the search read once; every channel answers at it. */
  revision: number;
  /** The normalized query (NFKC, trimmed, white space collapsed). */
  text: string;
  /** The query's vector and its profile, present when the search embedded the query. */
  embedding?: { profile: EmbeddingProfile; vector: readonly number[] };
  /** At most this many candidates (the policy's over-fetch of the coarse limit). */
  limit: number;
  /** The search's signal; a channel may stop early when it aborts. */
  signal?: AbortSignal;
  /**
   * The search's filter (RFC 0014): a channel ranks only the versions it keeps, inside its own read,
   * before its top `limit`. Undefined keeps all. A channel that cannot apply it says so (`filters`).
   */
  filter?: EntryFilter;
}

/** A channel's ranked candidates, and what the retrieval policy needs to admit them. */
export interface ChannelResult {
  /** Best first, ranks 1..n: identities and scores only, never text. */
  candidates: ChannelCandidate[];
  /** Distinct query terms the channel looked for after its analysis (lexemes, entities). */
  queryTermCount?: number;
  /** A score a candidate must reach to be admitted, when the channel's source sets one (a profile's minCosine). */
  minScore?: number;
}

/**
 * A search channel (RFC 0013): one ranked list of candidates for a query, read inside one scope at
 * the search's revision. The search runs the channels its retrieval policy fuses, in parallel; the
 * policy admits each list by the channel's name and fuses them. A channel returns identities and
 * scores only: the search reads the text of the candidates fusion keeps.
 *
 * The built-in channels (`fts`, `vector`, `entity`, `graph`) are implementations over the MemoryStore;
 * an application adds its own by implementing this interface and naming it in the policy.
 */
export interface SearchChannel {
  /** What `matchedBy`, `channelRanks` and the policy's weights call it; unique within a search. */
  readonly name: ChannelName;
  /** A versioned id of what the channel computes; a change that moves its rankings is a new id. */
  readonly id: string;
  readonly needs: ChannelInput;
  /**
   * True when the channel applies `ChannelQuery.filter` inside its read. A filtered search refuses
   * (422 on `filter`) to run a channel that does not: a filter applied after a channel's top-k would
   * lose matches. The built-in channels all do.
   */
  readonly filters?: boolean;
  search(query: ChannelQuery): Promise<ChannelResult>;
  /**
   * Optional: `search` of one query in several scopes at once, each at its own revision, for a search of
   * several scopes (RFC 0014, "Several scopes"): one result per scope, in the order given, each exactly
   * what `search` would answer for that scope. A search of several scopes calls it once instead of
   * `search` per scope. The built-in channels implement it over the store's reads of several scopes.
   */
  searchScopes?(
    query: Omit<ChannelQuery, 'scopeId' | 'revision'>,
    scopes: readonly ScopeAtRevision[],
  ): Promise<ChannelResult[]>;
  /**
   * Optional: which query terms each given version matched in its own words and which only through its
   * neighbours' (RFC 0007, "Explain"), read at the query's revision. The lexical channel implements it;
   * a search with `explain` calls it on the first channel of its fusion order that ran and has it.
   */
  explainTerms?(query: ChannelQuery, entryVersionIds: readonly string[]): Promise<LexicalMatchReport>;
}
