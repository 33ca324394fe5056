import {
  AUTHORITY_WEIGHT_MAX,
  type AuthorityWeights,
  type AuthorityWeightsInput,
  authorityWeightsSchema,
} from '@powercontext/memory-core';
import { z } from 'zod';
import { ConfigurationError } from './configuration-error.js';

export const AUTHORITY_PINNED_BOOST = 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_AUTHORITY_PINNED_BOOST';
export const AUTHORITY_TAG_WEIGHTS = 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_AUTHORITY_TAG_WEIGHTS';

const WEIGHT = /^\d+(\.\d+)?$/;
const TAG_WEIGHTS_RULE = `must be tag=weight pairs separated by commas, each weight within 0..${AUTHORITY_WEIGHT_MAX}`;

/**
 * The environment fields of the authority step (RFC 0014, "Authority after fusion"). The pinned boost
 * is a number; the tag weights are `tag=weight,...` (a tag is what precedes an item's last `=`, spaces
 * around items and around `=` ignored, so a tag cannot hold a comma; the runtime option `authority`
 * can name any tag). Each weight's range and each tag's rules are checked by `authorityFromEnv`.
 */
export const AUTHORITY_FIELDS = {
  [AUTHORITY_PINNED_BOOST]: z
    .string()
    .trim()
    .regex(WEIGHT, { error: `must be a number within 0..${AUTHORITY_WEIGHT_MAX}` })
    .transform(Number)
    .pipe(
      z.number().max(AUTHORITY_WEIGHT_MAX, { error: `must be a number within 0..${AUTHORITY_WEIGHT_MAX}` }),
    )
    .default(0),
  [AUTHORITY_TAG_WEIGHTS]: z
    .string()
    .transform((value, context) => {
      const weights: Record<string, number> = {};
      for (const item of value.split(',')) {
        const at = item.lastIndexOf('=');
        const tag = item.slice(0, at).trim();
        const weight = item.slice(at + 1).trim();
        if (at < 0 || tag === '' || !WEIGHT.test(weight)) {
          context.addIssue({ code: 'custom', message: `${TAG_WEIGHTS_RULE}; "${item.trim()}" is not one` });
          return z.NEVER;
        }
        if (Object.hasOwn(weights, tag)) {
          context.addIssue({ code: 'custom', message: `names the tag "${tag}" twice` });
          return z.NEVER;
        }
        weights[tag] = Number(weight);
      }
      return weights;
    })
    .default({}),
} as const;

/** The authority weights of the parsed environment, checked by memory-core's rules. */
export function authorityFromEnv(e: {
  [AUTHORITY_PINNED_BOOST]: number;
  [AUTHORITY_TAG_WEIGHTS]: Record<string, number>;
}): AuthorityWeights {
  const parsed = authorityWeightsSchema.safeParse({
    pinnedBoost: e[AUTHORITY_PINNED_BOOST],
    tagWeights: e[AUTHORITY_TAG_WEIGHTS],
  });
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const setting = issue.path[0] === 'pinnedBoost' ? AUTHORITY_PINNED_BOOST : AUTHORITY_TAG_WEIGHTS;
  const tag = issue.path[1];
  throw new ConfigurationError(
    setting,
    tag === undefined ? issue.message : `"${String(tag)}": ${issue.message}`,
  );
}

/**
 * The `authority` runtime option, checked by the same rules; a bad one is a ConfigurationError naming
 * `authority.pinnedBoost` or `authority.tagWeights.<tag>`.
 */
export function authorityFromOption(input: AuthorityWeightsInput): AuthorityWeights {
  const parsed = authorityWeightsSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new ConfigurationError(['authority', ...issue.path.map(String)].join('.'), issue.message);
}
