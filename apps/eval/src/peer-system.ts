import type { PeerSystem } from '@powercontext/search-peers';

export type { PeerSearchHit, PeerSystem } from '@powercontext/search-peers';

/**
 * Contract between the LoCoMo harness and peer retrieval systems
 * (MiniSearch, Orama, ...) from `@powercontext/search-peers`, loaded through `./peers/`.
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

/** Creates the peer systems for one conversation. */
export type PeerFactory = (conversationId: string) => Promise<PeerSystem[]>;
