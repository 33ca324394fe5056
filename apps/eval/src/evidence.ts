/**
 * Repair of LoCoMo evidence ids. Turn ids are `D<session>:<turn>`. A few upstream entries are
 * malformed: two ids in one string ("D8:6; D9:17"), a stray colon ("D:11:26"), a zero-padded turn
 * ("D30:05"). They are repaired only when the result names a turn that exists; anything else is
 * unresolvable and reported, never guessed.
 */

export interface RepairedEvidence {
  /** Resolved turn ids, deduplicated, in first-seen order. */
  ids: string[];
  /** Raw pieces that name no turn of the conversation, even after repair. */
  unresolved: string[];
  /** Pieces that needed a repair (split, colon, zero padding) and then named a turn. */
  repaired: number;
}

const TURN_ID = /^D\s*:?\s*(\d+)\s*:\s*(\d+)$/i;

/** The canonical form `D<session>:<turn>` of one piece, or undefined when it is not turn-shaped. */
export function canonicalTurnId(piece: string): string | undefined {
  const match = TURN_ID.exec(piece.trim());
  if (!match) return undefined;
  return `D${Number(match[1])}:${Number(match[2])}`;
}

/**
 * Resolves a list of raw evidence strings against the turn ids of one conversation. Strings are
 * split on ";" and ","; each piece is used as is when it names a turn, else in canonical form when
 * that names a turn, else counted as unresolved.
 */
export function repairEvidence(raw: readonly unknown[], turnIds: ReadonlySet<string>): RepairedEvidence {
  const ids: string[] = [];
  const seen = new Set<string>();
  const unresolved: string[] = [];
  let repaired = 0;
  for (const value of raw) {
    const text = typeof value === 'string' ? value : String(value);
    const pieces = text.split(/[;,]/).map((piece) => piece.trim());
    const split = pieces.length > 1;
    for (const piece of pieces) {
      if (piece === '' && split) continue;
      let id: string | undefined;
      if (turnIds.has(piece)) {
        id = piece;
        if (split) repaired++;
      } else {
        const canonical = canonicalTurnId(piece);
        if (canonical !== undefined && turnIds.has(canonical)) {
          id = canonical;
          repaired++;
        }
      }
      if (id === undefined) {
        unresolved.push(piece);
        continue;
      }
      if (!seen.has(id)) {
        seen.add(id);
        ids.push(id);
      }
    }
  }
  return { ids, unresolved, repaired };
}
