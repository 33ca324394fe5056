import { z } from 'zod';

/** Longest rationale the model may give, in characters. Part of the policy definition. */
export const DECISION_RATIONALE_MAX_CHARS = 500;

/**
 * What the model must answer: an `outcome` of `yes`, `no` or `abstain`, and optionally a short
 * `rationale`. Any other outcome, an overlong rationale or an extra key does not parse; the structured
 * generator reports that as `inference_invalid_output`.
 */
export const decisionOutputSchema = z.strictObject({
  outcome: z.enum(['yes', 'no', 'abstain']),
  rationale: z.string().max(DECISION_RATIONALE_MAX_CHARS).optional(),
});

export type DecisionOutput = z.infer<typeof decisionOutputSchema>;
