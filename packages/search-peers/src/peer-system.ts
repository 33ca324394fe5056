/**
 * The contract of a peer retrieval system: an in-process search library (MiniSearch, Orama, ...)
 * set up the way its documentation recommends, indexing the same texts the product stores and
 * answering queries with document ids, best first. The evaluation scores those ids exactly as it
 * scores the product's hits; the benchmarks time them.
 */

/** One document to index: a stable id and its text. */
export interface PeerDocument {
  unitId: string;
  text: string;
}

/** One peer hit, best first. */
export interface PeerSearchHit {
  unitId: string;
}

/** A peer retrieval system over one collection (a conversation, a scope). */
export interface PeerSystem {
  /** Reported system name, e.g. "minisearch" or "orama". */
  system: string;
  /** Reported retrieval mode, e.g. "fts" or "hybrid". */
  mode: string;
  /** Indexes the documents; may be called more than once to add more, always before searching. */
  index(documents: readonly PeerDocument[]): Promise<void>;
  /** Returns at most `k` hits, best first. */
  search(query: string, k: number): Promise<PeerSearchHit[]>;
  /** Releases resources. */
  close?(): Promise<void>;
}
