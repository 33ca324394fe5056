import { z } from 'zod';
import { tagSchema } from './entry-fields.js';

/** Largest pinned boost or tag weight. */
export const AUTHORITY_WEIGHT_MAX = 10;
/** Largest boost an entry can get, pinned and tagged together: its score is at most 11 x the fused one. */
export const AUTHORITY_BOOST_MAX = 10;
/** Most tags that may carry a weight. */
export const AUTHORITY_TAG_WEIGHTS_MAX = 64;

/**
 * What raises an entry's fused score after fusion (RFC 0014, "Authority after fusion"): a boost for a
 * pinned entry and a weight per tag (tags folded to lower case, as entries' tags are). All zero (the
 * default) is no authority step at all.
 */
export interface AuthorityWeights {
  pinnedBoost: number;
  /** Tag (lower case) to weight; tags with weight 0 are left out. */
  tagWeights: Readonly<Record<string, number>>;
}

export type AuthorityWeightsInput = {
  pinnedBoost?: number | undefined;
  tagWeights?: Readonly<Record<string, number>> | undefined;
};

const weight = (field: string) =>
  z
    .number({ error: `${field} must be a number` })
    .refine(Number.isFinite, { error: `${field} must be a finite number` })
    .refine((value) => value >= 0 && value <= AUTHORITY_WEIGHT_MAX, {
      error: `${field} must be within 0..${AUTHORITY_WEIGHT_MAX}`,
    });

/**
 * The rules of the weights: each in 0..10, at most 64 weighted tags, each a valid tag; two spellings of
 * one tag (`Billing`, `billing`) are refused rather than one silently winning. Tags are folded, and
 * tags of weight 0 dropped, so equal behaviour has one canonical form.
 */
export const authorityWeightsSchema = z
  .strictObject({
    pinnedBoost: weight('pinnedBoost').default(0),
    tagWeights: z
      .record(z.string(), weight('tag weight'), { error: 'tagWeights must map tags to weights' })
      .default({}),
  })
  .superRefine((value, context) => {
    const tags = Object.keys(value.tagWeights);
    if (tags.length > AUTHORITY_TAG_WEIGHTS_MAX) {
      context.addIssue({
        code: 'custom',
        path: ['tagWeights'],
        message: `tagWeights must name at most ${AUTHORITY_TAG_WEIGHTS_MAX} tags`,
      });
    }
    const folded = new Set<string>();
    for (const tag of tags) {
      const parsed = tagSchema.safeParse(tag);
      if (!parsed.success) {
        context.addIssue({
          code: 'custom',
          path: ['tagWeights', tag],
          message: parsed.error.issues[0]!.message,
        });
      } else if (folded.has(parsed.data)) {
        context.addIssue({
          code: 'custom',
          path: ['tagWeights', tag],
          message: `tag "${parsed.data}" is given twice (tags are folded to lower case)`,
        });
      } else folded.add(parsed.data);
    }
  })
  .transform(
    ({ pinnedBoost, tagWeights }): AuthorityWeights => ({
      pinnedBoost,
      tagWeights: Object.fromEntries(
        Object.entries(tagWeights)
          .filter(([, value]) => value > 0)
          .map(([tag, value]) => [tag.toLowerCase(), value])
          .sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0)),
      ),
    }),
  );

/** Whether the weights change anything: false when every weight is 0. */
export function hasAuthority(weights: AuthorityWeights): boolean {
  return weights.pinnedBoost > 0 || Object.keys(weights.tagWeights).length > 0;
}

/** How the authority step changed one hit's score (explain's `authority`). */
export interface AuthorityAdjustment {
  /** The score fusion gave the hit. */
  fusedScore: number;
  /** min(10, pinnedBoost + tagWeight); the hit's score is fusedScore x (1 + boost). */
  boost: number;
  /** The policy's pinned boost when the entry is pinned, else 0. */
  pinnedBoost: number;
  /** The entry's weighted tag of the largest weight (the first in the entry's tag order among equals), or null. */
  tag: string | null;
  /** That tag's weight, or 0. */
  tagWeight: number;
}

/**
 * The formula of RFC 0014: score = fused x (1 + min(10, pinned_boost x [pinned] + max weight of the
 * entry's tags)). The largest tag weight counts, not their sum, so more tags never buy more rank.
 */
export function authorityAdjustment(
  weights: AuthorityWeights,
  entry: { pinned: boolean; tags: readonly string[] },
  fusedScore: number,
): AuthorityAdjustment {
  const pinnedBoost = entry.pinned ? weights.pinnedBoost : 0;
  let tag: string | null = null;
  let tagWeight = 0;
  for (const candidate of entry.tags) {
    const value = weights.tagWeights[candidate] ?? 0;
    if (value > tagWeight) {
      tag = candidate;
      tagWeight = value;
    }
  }
  return {
    fusedScore,
    boost: Math.min(AUTHORITY_BOOST_MAX, pinnedBoost + tagWeight),
    pinnedBoost,
    tag,
    tagWeight,
  };
}
