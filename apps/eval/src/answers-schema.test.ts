import { describe, expect, it } from 'vitest';
import { answersSchema } from './answers-schema.js';
import { validateSummary } from './summary-schema.js';

function measuredAnswers() {
  return {
    measured: true,
    answer_model: 'openai:gpt-test',
    prompt: 'powercontext.eval.locomo.answer.v1',
    context_hits: 10,
    questions: 2,
    failed_questions: 0,
    exact_match: 0.5,
    token_f1: 0.75,
    bleu_1: 0.6,
    judge: {
      measured: true,
      model: 'openai:judge-test',
      policy: 'strict',
      prompt: 'powercontext.eval.locomo.judge.strict.v1',
      judged: 2,
      failed: 0,
      accuracy: 0.5,
    },
    by_category: {
      '4': { questions: 2, exact_match: 0.5, token_f1: 0.75, bleu_1: 0.6, judge_accuracy: 0.5 },
    },
    latency_ms: { answer_p50: 800, answer_p95: 1200, judge_p50: 500, judge_p95: 700 },
    usage: { answer: { requests: 2, calls: 2, input_tokens: 900 }, judge: { requests: 2, calls: 2 } },
  };
}

function summaryWith(answers: unknown) {
  return {
    dataset: {
      file: 'fixture.json',
      sha256: 'b'.repeat(64),
      conversations: 1,
      questions: 2,
      scored_questions: 2,
      unresolved_evidence_ids: 0,
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
        questions: 2,
        final: { recall_at_10: 0.5 },
        coarse: { recall_at_50: 0.5 },
        by_category: { '4': { recall_at_10: 0.5 } },
        answers,
      },
    ],
  };
}

describe('the answers object of a run', () => {
  it('accepts measured answers, answers not measured with a reason, and a judge not measured', () => {
    expect(answersSchema.parse(measuredAnswers())).toEqual(measuredAnswers());
    expect(answersSchema.parse({ measured: false, reason: 'no answer was generated' }).measured).toBe(false);
    const noJudge = { ...measuredAnswers(), judge: { measured: false, reason: 'no judge model configured' } };
    expect(answersSchema.safeParse(noJudge).success).toBe(true);
    expect(validateSummary(summaryWith(measuredAnswers())).runs[0]).toMatchObject({
      answers: { exact_match: 0.5 },
    });
  });

  it('rejects fractions above 1, unknown keys, a judge without its policy and unknown categories', () => {
    expect(() => validateSummary(summaryWith({ ...measuredAnswers(), token_f1: 1.5 }))).toThrow(
      /runs\.0\.answers\.token_f1/,
    );
    expect(answersSchema.safeParse({ ...measuredAnswers(), recall_at_10: 0.5 }).success).toBe(false);
    const judge = { ...measuredAnswers().judge } as Record<string, unknown>;
    delete judge.policy;
    expect(answersSchema.safeParse({ ...measuredAnswers(), judge }).success).toBe(false);
    const category6 = { ...measuredAnswers(), by_category: { '6': measuredAnswers().by_category['4'] } };
    expect(answersSchema.safeParse(category6).success).toBe(false);
    expect(answersSchema.safeParse({ measured: false }).success).toBe(false);
  });
});
