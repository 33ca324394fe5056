import { percentile } from '@powercontext/cli-support';
import { addUsage, type InferenceUsage, NO_INFERENCE_USAGE } from '@powercontext/inference';
import { bleu1, exactMatch, tokenF1 } from './answer-metrics.js';
import type { JudgeResultJson, MeasuredAnswersJson } from './answers-schema.js';
import type { JudgePolicy } from './args.js';
import type { Category } from './locomo-data.js';

interface Scored {
  category: Category;
  exactMatch: number;
  tokenF1: number;
  bleu1: number;
  /** 1 correct, 0 incorrect, undefined not judged (no judge, or the judge call failed). */
  verdict?: number;
}

export interface JudgeIdentity {
  model: string;
  policy: JudgePolicy;
  prompt: string;
}

/** Collects one run's answers, scores, verdicts, latencies and usage, and reports its `answers` object. */
export class AnswerAccumulator {
  readonly #scored: Scored[] = [];
  readonly #answerMs: number[] = [];
  readonly #judgeMs: number[] = [];
  #answerUsage: InferenceUsage = { ...NO_INFERENCE_USAGE };
  #judgeUsage: InferenceUsage = { ...NO_INFERENCE_USAGE };
  #failedAnswers = 0;
  #failedJudgements = 0;
  /** Why the judge stopped in this run, when it did. */
  #judgeStopped: string | undefined;

  constructor(
    readonly identity: { answerModel: string; prompt: string; contextHits: number },
    readonly judge: JudgeIdentity | { reason: string },
  ) {}

  /** A generated answer (undefined when the generator failed), scored against the gold answer. */
  addAnswer(category: Category, answer: string | undefined, gold: string): Scored {
    const scored: Scored =
      answer === undefined
        ? { category, exactMatch: 0, tokenF1: 0, bleu1: 0 }
        : {
            category,
            exactMatch: exactMatch(answer, gold),
            tokenF1: tokenF1(answer, gold),
            bleu1: bleu1(answer, gold),
          };
    if (answer === undefined) this.#failedAnswers++;
    this.#scored.push(scored);
    return scored;
  }

  /** The judge's verdict on the last answer; undefined when the judge call failed. */
  setVerdict(scored: Scored, correct: boolean | undefined): void {
    if (correct === undefined) this.#failedJudgements++;
    else scored.verdict = correct ? 1 : 0;
  }

  stopJudge(reason: string): void {
    this.#judgeStopped ??= reason;
  }

  addAnswerCall(milliseconds: number | undefined, usage: InferenceUsage | undefined): void {
    if (milliseconds !== undefined) this.#answerMs.push(milliseconds);
    if (usage) this.#answerUsage = addUsage(this.#answerUsage, usage);
  }

  addJudgeCall(milliseconds: number | undefined, usage: InferenceUsage | undefined): void {
    if (milliseconds !== undefined) this.#judgeMs.push(milliseconds);
    if (usage) this.#judgeUsage = addUsage(this.#judgeUsage, usage);
  }

  get answered(): number {
    return this.#scored.length - this.#failedAnswers;
  }

  build(): MeasuredAnswersJson {
    const judged = this.#scored.filter((item) => item.verdict !== undefined);
    const judge: JudgeResultJson =
      'reason' in this.judge
        ? { measured: false, reason: this.judge.reason }
        : this.#judgeStopped !== undefined || judged.length === 0
          ? { measured: false, reason: this.#judgeStopped ?? 'the judge returned no verdict' }
          : {
              measured: true,
              ...this.judge,
              judged: judged.length,
              failed: this.#failedJudgements,
              accuracy: round(mean(judged.map((item) => item.verdict!))),
            };
    const latency: MeasuredAnswersJson['latency_ms'] = {
      answer_p50: roundMs(this.#answerMs.length > 0 ? percentile(this.#answerMs, 50) : 0),
      answer_p95: roundMs(this.#answerMs.length > 0 ? percentile(this.#answerMs, 95) : 0),
      ...(this.#judgeMs.length > 0
        ? {
            judge_p50: roundMs(percentile(this.#judgeMs, 50)),
            judge_p95: roundMs(percentile(this.#judgeMs, 95)),
          }
        : {}),
    };
    return {
      measured: true,
      answer_model: this.identity.answerModel,
      prompt: this.identity.prompt,
      context_hits: this.identity.contextHits,
      questions: this.#scored.length,
      failed_questions: this.#failedAnswers,
      ...averages(this.#scored),
      judge,
      by_category: byCategory(this.#scored, judge.measured),
      latency_ms: latency,
      usage: {
        answer: usageJson(this.#answerUsage),
        ...('reason' in this.judge ? {} : { judge: usageJson(this.#judgeUsage) }),
      },
    };
  }
}

function averages(items: readonly Scored[]) {
  return {
    exact_match: round(mean(items.map((item) => item.exactMatch))),
    token_f1: round(mean(items.map((item) => item.tokenF1))),
    bleu_1: round(mean(items.map((item) => item.bleu1))),
  };
}

function byCategory(items: readonly Scored[], judged: boolean) {
  const grouped = new Map<Category, Scored[]>();
  for (const item of items) grouped.set(item.category, [...(grouped.get(item.category) ?? []), item]);
  const result: MeasuredAnswersJson['by_category'] = {};
  for (const category of [...grouped.keys()].sort()) {
    const group = grouped.get(category)!;
    const verdicts = group.flatMap((item) => (item.verdict === undefined ? [] : [item.verdict]));
    result[category] = {
      questions: group.length,
      ...averages(group),
      ...(judged && verdicts.length > 0 ? { judge_accuracy: round(mean(verdicts)) } : {}),
    };
  }
  return result;
}

function usageJson(usage: InferenceUsage) {
  return {
    requests: usage.requests,
    calls: usage.calls,
    ...(usage.inputTokens !== undefined ? { input_tokens: usage.inputTokens } : {}),
    ...(usage.outputTokens !== undefined ? { output_tokens: usage.outputTokens } : {}),
    ...(usage.totalTokens !== undefined ? { total_tokens: usage.totalTokens } : {}),
  };
}

const mean = (values: readonly number[]) =>
  values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
const round = (value: number) => Math.round(value * 10_000) / 10_000;
const roundMs = (value: number) => Math.round(value * 1000) / 1000;
