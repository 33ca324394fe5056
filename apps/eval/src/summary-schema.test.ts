import { describe, expect, it } from 'vitest';
import { summarySchema, validateSummary } from './summary-schema.js';

function validSummary() {
  return {
    dataset: {
      file: '../shared/locomo/locomo-dev.json',
      sha256: 'a'.repeat(64),
      conversations: 7,
      questions: 1347,
      scored_questions: 1345,
      unresolved_evidence_ids: 3,
    },
    runs: [
      {
        system: 'powercontext',
        mode: 'hybrid',
        unit: 'turn',
        rerank: 'none',
        top_k: 30,
        final_k: 10,
        measured: true,
        questions: 1345,
        final: {
          recall_at_1: 0.3,
          recall_at_5: 0.5,
          recall_at_10: 0.6,
          hit_at_10: 0.7,
          mrr: 0.4,
          ndcg_at_10: 0.45,
        },
        coarse: { recall_at_10: 0.6, recall_at_25: 0.7, recall_at_30: 0.72, recall_at_50: 0.8, mrr: 0.41 },
        by_category: { '1': { recall_at_10: 0.3 }, '5': { recall_at_10: 0.6 } },
        latency_ms: { search_p50: 4.2, search_p95: 9.1 },
      },
      {
        system: 'powercontext',
        mode: 'hybrid',
        unit: 'turn',
        rerank: 'listwise',
        top_k: 30,
        final_k: 10,
        measured: false,
        reason: 'no model configured',
      },
    ],
  };
}

describe('summarySchema', () => {
  it('accepts the documented format, with metric keys absent where not defined', () => {
    expect(validateSummary(validSummary()).runs).toHaveLength(2);
  });

  it('drops undefined keys the way JSON does, so they count as absent', () => {
    const summary = validSummary();
    (summary.runs[0] as { final: Record<string, unknown> }).final.recall_at_25 = undefined;
    const parsed = validateSummary(summary);
    expect(parsed.runs[0]!.measured && 'recall_at_25' in parsed.runs[0]!.final).toBe(false);
  });

  it('rejects null, NaN and fractions outside [0, 1]', () => {
    for (const bad of [null, Number.NaN, 1.01, -0.1]) {
      const summary = validSummary();
      (summary.runs[0] as { final: Record<string, unknown> }).final.recall_at_10 = bad;
      expect(() => validateSummary(summary)).toThrow(/final\.recall_at_10/);
    }
  });

  it('rejects unknown metric keys and unknown systems', () => {
    const extraKey = validSummary();
    (extraKey.runs[0] as { final: Record<string, unknown> }).final.recall_at_100 = 0.9;
    expect(summarySchema.safeParse(extraKey).success).toBe(false);
    const unknownSystem = validSummary();
    unknownSystem.runs[0]!.system = 'bm25s';
    expect(summarySchema.safeParse(unknownSystem).success).toBe(false);
  });

  it('requires a reason and no metric keys on a run that was not measured', () => {
    const withMetrics = validSummary();
    Object.assign(withMetrics.runs[1]!, { final: { recall_at_10: 0.5 } });
    expect(summarySchema.safeParse(withMetrics).success).toBe(false);
    const withoutReason = validSummary();
    delete (withoutReason.runs[1] as { reason?: string }).reason;
    expect(summarySchema.safeParse(withoutReason).success).toBe(false);
  });

  it('requires the dataset block', () => {
    const summary: Partial<ReturnType<typeof validSummary>> = validSummary();
    delete summary.dataset;
    expect(summarySchema.safeParse(summary).success).toBe(false);
  });
});
