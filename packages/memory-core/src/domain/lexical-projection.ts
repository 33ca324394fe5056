import { z } from 'zod';
import { storableText } from './text-rules.js';

/**
 * Where an entry sits in an ordered source: a conversation session and a turn number, a document and a
 * paragraph index. Entries of one source are ordered by `order`, compared element by element (a
 * shorter key that is a prefix of a longer one comes first), then by entry id.
 */
export interface EntryPosition {
  sourceId: string;
  order: number[];
}

export const POSITION_ORDER_MAX_PARTS = 4;

export const entryPositionSchema = z
  .strictObject({
    sourceId: storableText('position.sourceId', 1, 512),
    order: z.union(
      [
        z.number({ error: 'position.order must be a number or an array of numbers' }),
        z
          .array(z.number({ error: 'position.order items must be numbers' }))
          .min(1, { error: 'position.order must have at least 1 item' })
          .max(POSITION_ORDER_MAX_PARTS, {
            error: `position.order must have at most ${POSITION_ORDER_MAX_PARTS} items`,
          }),
      ],
      { error: 'position.order must be a number or an array of numbers' },
    ),
  })
  .transform(({ sourceId, order }) => ({ sourceId, order: typeof order === 'number' ? [order] : order }))
  .refine(({ order }) => order.every(Number.isFinite), { error: 'position.order must be finite numbers' });

export type EntryPositionInput = z.input<typeof entryPositionSchema>;

/** Orders two order keys element by element; a prefix comes first. */
export function compareOrder(a: readonly number[], b: readonly number[]): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i += 1) {
    const difference = a[i]! - b[i]!;
    if (difference !== 0) return difference < 0 ? -1 : 1;
  }
  return a.length - b.length;
}

/**
 * How an entry is projected into the lexical index: its own words, plus the words of up to W
 * preceding and W following active entries of the same source, weighted by distance
 * (`contextWeights[d - 1]` at distance d, W = the number of weights). The projection changes what
 * the lexical channel matches, never the stored or returned text. The id names the rule exactly, so
 * every stored projection says which rule built it.
 */
export interface LexicalProjectionPolicy {
  readonly id: string;
  readonly contextWeights: readonly number[];
}

export const LEXICAL_PROJECTION_FAMILY = 'powercontext.lexical.neighbours.v1';
export const MAX_CONTEXT_DISTANCE = 8;

/** The projection policy for these weights; its id is derived from them. */
export function lexicalProjectionPolicy(contextWeights: readonly number[]): LexicalProjectionPolicy {
  if (contextWeights.length > MAX_CONTEXT_DISTANCE) {
    throw new RangeError(`contextWeights must have at most ${MAX_CONTEXT_DISTANCE} items`);
  }
  for (const weight of contextWeights) {
    if (!Number.isFinite(weight) || weight <= 0 || weight > 1) {
      throw new RangeError(`contextWeights must be numbers in (0, 1], got ${weight}`);
    }
  }
  const weights = [...contextWeights];
  return Object.freeze({
    id: `${LEXICAL_PROJECTION_FAMILY}(${weights.join(',')})`,
    contextWeights: Object.freeze(weights),
  });
}

/** No neighbour context: each entry is indexed with its own words only. */
export const PLAIN_LEXICAL_PROJECTION = lexicalProjectionPolicy([]);

/** One neighbour whose words are part of an entry's projection. */
export interface ProjectionNeighbour {
  entryVersionId: string;
  weight: number;
}

/** A member of an ordered source as the stores see it. */
export interface SourceMember {
  entryId: string;
  entryVersionId: string;
  order: readonly number[];
}

/**
 * The neighbour context of every member of one source: for each member, its neighbours at distance
 * 1..W before and after, nearest first, preceding before following at equal distance.
 */
export function contextWindows(
  members: readonly SourceMember[],
  policy: LexicalProjectionPolicy,
): Map<string, ProjectionNeighbour[]> {
  const ordered = [...members].sort(
    (a, b) => compareOrder(a.order, b.order) || compareText(a.entryId, b.entryId),
  );
  const windows = new Map<string, ProjectionNeighbour[]>();
  ordered.forEach((member, index) => {
    const context: ProjectionNeighbour[] = [];
    policy.contextWeights.forEach((weight, offset) => {
      const distance = offset + 1;
      const before = ordered[index - distance];
      const after = ordered[index + distance];
      if (before) context.push({ entryVersionId: before.entryVersionId, weight });
      if (after) context.push({ entryVersionId: after.entryVersionId, weight });
    });
    windows.set(member.entryVersionId, context);
  });
  return windows;
}

/** True when two contexts name the same neighbours with the same weights in the same order. */
export function sameContext(a: readonly ProjectionNeighbour[], b: readonly ProjectionNeighbour[]): boolean {
  return (
    a.length === b.length &&
    a.every((item, i) => item.entryVersionId === b[i]!.entryVersionId && item.weight === b[i]!.weight)
  );
}

/** The projection an entry has now, as a store reports it. */
export interface CurrentProjection {
  policyId: string;
  context: readonly ProjectionNeighbour[];
}

/** A projection a store must (re)build, with the policy that asks for it. */
export interface PlannedProjection {
  entryVersionId: string;
  context: ProjectionNeighbour[];
}

/**
 * Which projections to rebuild after a write: every active entry of a touched source whose
 * neighbour context or projection policy differs from what is stored, and every new active entry
 * without a position (own words only).
 */
export function planProjections(input: {
  policy: LexicalProjectionPolicy;
  /** Active members of each touched source at the new revision. */
  sources: ReadonlyMap<string, readonly SourceMember[]>;
  /** Active entry versions written in this revision without a position. */
  unpositioned: readonly string[];
  current: (entryVersionId: string) => CurrentProjection | undefined;
}): PlannedProjection[] {
  const planned: PlannedProjection[] = [];
  const consider = (entryVersionId: string, context: ProjectionNeighbour[]) => {
    const existing = input.current(entryVersionId);
    if (existing && existing.policyId === input.policy.id && sameContext(existing.context, context)) return;
    planned.push({ entryVersionId, context });
  };
  for (const members of input.sources.values()) {
    for (const [entryVersionId, context] of contextWindows(members, input.policy))
      consider(entryVersionId, context);
  }
  for (const entryVersionId of input.unpositioned) consider(entryVersionId, []);
  return planned;
}

/** How many live entries of a scope are projected by a policy other than the given one. */
export interface LexicalProjectionState {
  policyId: string;
  stale: number;
  complete: boolean;
}

function compareText(a: string, b: string) {
  return a < b ? -1 : a > b ? 1 : 0;
}
