import { z } from 'zod';
import { answersSchema } from './answers-schema.js';
import { assemblyRunSchema } from './assembly-retention.js';

/**
 * The documented format of `<out>/summary.json`. The harness validates what it writes against this
 * schema (after a JSON round trip, so an undefined or NaN value cannot slip through as null): every
 * fraction lies in [0, 1], and a metric that is not defined for a run is absent, never null.
 */

const fraction = z.number().min(0).max(1);
const milliseconds = z.number().min(0);
const count = z.int().min(0);

export const metricsSchema = z.strictObject({
  recall_at_1: fraction.optional(),
  recall_at_5: fraction.optional(),
  recall_at_10: fraction.optional(),
  recall_at_25: fraction.optional(),
  recall_at_30: fraction.optional(),
  recall_at_50: fraction.optional(),
  hit_at_10: fraction.optional(),
  mrr: fraction.optional(),
  ndcg_at_10: fraction.optional(),
  no_hits: fraction.optional(),
});

const byCategorySchema = z.strictObject({
  '1': metricsSchema.optional(),
  '2': metricsSchema.optional(),
  '3': metricsSchema.optional(),
  '4': metricsSchema.optional(),
  '5': metricsSchema.optional(),
});

export const SYSTEMS = ['powercontext', 'minisearch', 'orama', 'oracle'] as const;

const runIdentity = {
  system: z.enum(SYSTEMS),
  mode: z.string().min(1),
  unit: z.enum(['turn', 'observation']),
  /** none, the runtime's rerank policy, or oracle (the best order any reranker could give the pool). */
  rerank: z.enum(['none', 'listwise', 'decision', 'oracle']),
  top_k: z.int().min(1).max(50),
  final_k: z.int().min(1).max(50),
  /**
   * powercontext and oracle runs: the neighbour context weights of the lexical index the run searched
   * (POWERCONTEXT_SERVER_RUNTIME_MEMORY_LEXICAL_CONTEXT_WEIGHTS), or "none".
   */
  lexical_context: z.string().min(1).optional(),
  /** powercontext and oracle runs: the search channels the run fused, comma-separated (RFC 0013). */
  channels: z.string().min(1).optional(),
};

export const measuredRunSchema = z.strictObject({
  ...runIdentity,
  measured: z.literal(true),
  /** Scored questions this run answered. */
  questions: count,
  final: metricsSchema,
  coarse: metricsSchema,
  by_category: byCategorySchema,
  coarse_by_category: byCategorySchema.optional(),
  latency_ms: z
    .strictObject({
      search_p50: milliseconds.optional(),
      search_p95: milliseconds.optional(),
      rerank_p50: milliseconds.optional(),
      rerank_p95: milliseconds.optional(),
    })
    .optional(),
  usage: z
    .strictObject({
      requests: count,
      calls: count,
      input_tokens: count.optional(),
      output_tokens: count.optional(),
      total_tokens: count.optional(),
    })
    .optional(),
  /** What the run measured, in words (e.g. how coarse and final were obtained). */
  note: z.string().min(1).optional(),
  /** Assembly retention under `--assembly-budget` (absent without it). */
  assembly: assemblyRunSchema.optional(),
  /** The optional answer stage's figures (answers-schema.ts); never mixed with the retrieval metrics. */
  answers: answersSchema.optional(),
});

export const unmeasuredRunSchema = z.strictObject({
  ...runIdentity,
  measured: z.literal(false),
  reason: z.string().min(1),
});

export const runSchema = z.discriminatedUnion('measured', [measuredRunSchema, unmeasuredRunSchema]);

export const summarySchema = z.strictObject({
  dataset: z.strictObject({
    file: z.string().min(1),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    conversations: count,
    questions: count,
    scored_questions: count,
    unresolved_evidence_ids: count,
    excluded_questions: count.optional(),
    repaired_evidence_ids: count.optional(),
    unit: z.enum(['turn', 'observation']).optional(),
    units: count.optional(),
    merged_duplicate_units: count.optional(),
    unresolved_observation_ids: count.optional(),
  }),
  config: z
    .strictObject({
      generated_at: z.string().min(1),
      embedding_profile: z.string().min(1),
      retrieval_policy: z.string().min(1),
      conversation_ids: z.array(z.string().min(1)),
      coarse_limit: z.int().min(1),
      remember_batch_size: z.int().min(1),
    })
    .optional(),
  runs: z.array(runSchema),
});

export type MetricsJson = z.infer<typeof metricsSchema>;
export type MeasuredRun = z.infer<typeof measuredRunSchema>;
export type UnmeasuredRun = z.infer<typeof unmeasuredRunSchema>;
export type RunJson = z.infer<typeof runSchema>;
export type Summary = z.infer<typeof summarySchema>;

/** Validates a summary exactly as it will be read back from disk; throws with the first issue. */
export function validateSummary(summary: unknown): Summary {
  const roundTripped: unknown = JSON.parse(JSON.stringify(summary));
  const parsed = summarySchema.safeParse(roundTripped);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`summary.json does not match its schema at ${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}
