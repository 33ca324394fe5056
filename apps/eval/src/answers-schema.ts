import { z } from 'zod';

/**
 * The `answers` object of a run in summary.json: the optional answer stage's accuracy figures,
 * kept apart from the retrieval metrics. Present on the measured runs the stage answered for
 * (PowerContext runs and peers, never the oracle) when the stage was requested; absent otherwise.
 */

export const NO_ANSWER_MODEL = 'no answer model configured (pass --answer-model)';
export const NO_JUDGE_MODEL = 'no judge model configured (pass --judge-model)';

const fraction = z.number().min(0).max(1);
const count = z.int().min(0);
const milliseconds = z.number().min(0);

const usageSchema = z.strictObject({
  requests: count,
  calls: count,
  input_tokens: count.optional(),
  output_tokens: count.optional(),
  total_tokens: count.optional(),
});

const categoryAnswersSchema = z.strictObject({
  questions: count,
  exact_match: fraction,
  token_f1: fraction,
  bleu_1: fraction,
  judge_accuracy: fraction.optional(),
});

export const judgeResultSchema = z.discriminatedUnion('measured', [
  z.strictObject({
    measured: z.literal(true),
    model: z.string().min(1),
    policy: z.enum(['strict', 'topical']),
    prompt: z.string().min(1),
    /** Answers the judge returned a verdict for. */
    judged: count,
    /** Judge calls that failed: those answers are left out of the accuracy. */
    failed: count,
    /** Fraction of judged answers graded correct (a failed answer counts as judged incorrect). */
    accuracy: fraction,
  }),
  z.strictObject({ measured: z.literal(false), reason: z.string().min(1) }),
]);

export const answersSchema = z.discriminatedUnion('measured', [
  z.strictObject({
    measured: z.literal(true),
    answer_model: z.string().min(1),
    prompt: z.string().min(1),
    /** Final hits given to the generator per question: at most final_k. */
    context_hits: count,
    questions: count,
    /** Answers the generator failed to give: they score 0 everywhere. */
    failed_questions: count,
    exact_match: fraction,
    token_f1: fraction,
    bleu_1: fraction,
    judge: judgeResultSchema,
    by_category: z.strictObject({
      '1': categoryAnswersSchema.optional(),
      '2': categoryAnswersSchema.optional(),
      '3': categoryAnswersSchema.optional(),
      '4': categoryAnswersSchema.optional(),
      '5': categoryAnswersSchema.optional(),
    }),
    latency_ms: z.strictObject({
      answer_p50: milliseconds,
      answer_p95: milliseconds,
      judge_p50: milliseconds.optional(),
      judge_p95: milliseconds.optional(),
    }),
    usage: z.strictObject({ answer: usageSchema, judge: usageSchema.optional() }),
  }),
  z.strictObject({ measured: z.literal(false), reason: z.string().min(1) }),
]);

export type AnswersJson = z.infer<typeof answersSchema>;
export type MeasuredAnswersJson = Extract<AnswersJson, { measured: true }>;
export type JudgeResultJson = z.infer<typeof judgeResultSchema>;
