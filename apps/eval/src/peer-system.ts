/**
 * Contract between the LoCoMo harness and peer retrieval systems
 * (MiniSearch, Orama, ...) implemented under `./peers/`.
 *
 * A peer indexes the same evaluation units the harness ingests into
 * PowerContext and answers queries with unit ids, best first. The harness
 * scores the returned ids exactly as it scores PowerContext hits.
 */

/** One retrievable unit: a dialog turn or an observation fact. */
export interface EvalUnit {
  /** Stable id of the unit (for turn units, the turn id, e.g. "D1:3"). */
  unitId: string;
  /** Text to index. */
  text: string;
  /** Dialog turn ids the unit covers (evidence it can satisfy). */
  turnIds: string[];
  /** Session date of the unit's session, as given by the dataset. */
  sessionDate?: string;
  /** The unit's place in its session (session id + order), given to the runtime as the entry position. */
  position?: { sourceId: string; order: number[] };
}

/** One peer hit, best first. */
export interface PeerSearchHit {
  unitId: string;
}

/** A peer retrieval system scoped to one conversation. */
export interface PeerSystem {
  /** Reported system name, e.g. "minisearch" or "orama". */
  system: string;
  /** Reported retrieval mode, e.g. "fts" or "hybrid". */
  mode: string;
  /** Index all units of the conversation (called once, before any search). */
  index(units: readonly EvalUnit[]): Promise<void>;
  /** Return at most `k` hits, best first. */
  search(query: string, k: number): Promise<PeerSearchHit[]>;
  /** Release resources. */
  close?(): Promise<void>;
}

/** Creates the peer systems for one conversation. */
export type PeerFactory = (conversationId: string) => Promise<PeerSystem[]>;
