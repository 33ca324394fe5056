import { performance } from 'node:perf_hooks';
import { createProgressBar } from '@powercontext/cli-support';
import {
  InferenceError,
  type InferenceUsage,
  type StructuredGenerationRequest,
  type StructuredGenerator,
} from '@powercontext/inference';
import { createAiSdkStructuredGenerator, createLanguageModel } from '@powercontext/inference-ai-sdk';
import { loadRuntimeConfig } from '@powercontext/runtime';
import { AnswerAccumulator, type JudgeIdentity } from './answer-accumulator.js';
import {
  ABSTAIN_ANSWER,
  ANSWER_PROMPT_ID,
  ANSWER_SYSTEM,
  answerOutputSchema,
  answerPrompt,
  JUDGE_PROMPT_IDS,
  judgeOutputSchema,
  judgePrompt,
  judgeSystem,
} from './answer-prompts.js';
import { NO_ANSWER_MODEL, NO_JUDGE_MODEL } from './answers-schema.js';
import type { EvalArgs } from './args.js';
import { describe, type EvalContext, warn } from './eval-context.js';
import type { EvalQuestion } from './locomo-data.js';
import type { EvalUnit } from './peer-system.js';
import { runLabel } from './run-accumulator.js';
import { coarseRuntimeEnv, type RuntimeEnv } from './runtime-env.js';
import type { MeasuredRun, RunJson } from './summary-schema.js';

/** The stage gives up on a model after this many failures in a row (a server that is down, a bad model name). */
export const MAX_CONSECUTIVE_FAILURES = 5;

/** True when the answer stage will run, so the runs keep their final hits for it. */
export const answerStageRequested = (args: Pick<EvalArgs, 'answerModel'>) => args.answerModel !== undefined;

/**
 * A generator for a model spec, built the way the runtime builds its own: the project's AI SDK
 * adapter, with the base URL, API key, timeout and request limit of the runtime configuration
 * (POWERCONTEXT_SERVER_INFERENCE_BASE_URL / _API_KEY / _GENERATION_TIMEOUT_SECONDS / _GENERATION_MAX_REQUESTS).
 */
function generatorFor(spec: string, env: RuntimeEnv, args: EvalArgs): StructuredGenerator {
  const config = loadRuntimeConfig(coarseRuntimeEnv(env, '.', args));
  const model = createLanguageModel(spec, {
    baseUrl: config.inference.baseUrl,
    apiKey: config.inference.apiKey?.reveal(),
  });
  return createAiSdkStructuredGenerator({
    model,
    timeoutSeconds: config.generation.timeoutSeconds,
    maxRequests: config.generation.maxRequests,
  });
}

/** Counts failures in a row; `tripped` once there were MAX_CONSECUTIVE_FAILURES of them. */
class FailureStreak {
  #count = 0;
  last: string | undefined;
  ok(): void {
    this.#count = 0;
  }
  fail(error: unknown): void {
    this.#count++;
    this.last = describe(error);
  }
  get tripped(): boolean {
    return this.#count >= MAX_CONSECUTIVE_FAILURES;
  }
}

async function timed<T>(
  generator: StructuredGenerator,
  request: StructuredGenerationRequest<T>,
): Promise<{ output?: T; error?: unknown; milliseconds?: number; usage?: InferenceUsage }> {
  const started = performance.now();
  try {
    const result = await generator.generate(request);
    return { output: result.output, milliseconds: performance.now() - started, usage: result.usage };
  } catch (error) {
    return { error, usage: InferenceError.isInstance(error) ? error.usage : undefined };
  }
}

/** The gold answer a generated answer is scored against: category 5 questions expect an abstention. */
export function goldAnswer(question: EvalQuestion): string {
  return question.category === '5' ? ABSTAIN_ANSWER : question.answer;
}

interface Models {
  answer: StructuredGenerator;
  judge: { generator: StructuredGenerator; identity: JudgeIdentity } | { reason: string };
}

class StageStopped extends Error {}

async function answerRun(
  context: EvalContext,
  run: MeasuredRun,
  hits: Map<EvalQuestion, EvalUnit[]>,
  models: Models,
  streaks: { answer: FailureStreak; judge: FailureStreak },
) {
  const { args } = context;
  const accumulator = new AnswerAccumulator(
    { answerModel: args.answerModel!, prompt: ANSWER_PROMPT_ID, contextHits: args.finalK },
    'reason' in models.judge ? models.judge : models.judge.identity,
  );
  const bar = createProgressBar(`answer ${runLabel(run)}`, hits.size, context.stream);
  let done = 0;
  bar.update(0);
  for (const [question, units] of hits) {
    const memories = units.map((unit) => ({
      text: unit.text,
      ...(unit.sessionDate ? { date: unit.sessionDate } : {}),
    }));
    const answered = await timed(models.answer, {
      system: ANSWER_SYSTEM,
      prompt: answerPrompt(question.question, memories),
      schema: answerOutputSchema,
    });
    accumulator.addAnswerCall(answered.milliseconds, answered.usage);
    if (answered.error === undefined) streaks.answer.ok();
    else streaks.answer.fail(answered.error);
    if (streaks.answer.tripped) {
      throw new StageStopped(
        `stopped after ${MAX_CONSECUTIVE_FAILURES} answer failures in a row: ${streaks.answer.last}`,
      );
    }
    const answer = answered.output?.answer;
    const gold = goldAnswer(question);
    const scored = accumulator.addAnswer(question.category, answer, gold);
    if (!('reason' in models.judge)) {
      if (answer === undefined) {
        accumulator.setVerdict(scored, false);
      } else if (!streaks.judge.tripped) {
        const judged = await timed(models.judge.generator, {
          system: judgeSystem(args.judgePolicy),
          prompt: judgePrompt(question.question, gold, answer),
          schema: judgeOutputSchema,
        });
        accumulator.addJudgeCall(judged.milliseconds, judged.usage);
        if (judged.error === undefined) streaks.judge.ok();
        else streaks.judge.fail(judged.error);
        accumulator.setVerdict(scored, judged.output ? judged.output.verdict === 'correct' : undefined);
      }
      if (streaks.judge.tripped) {
        accumulator.stopJudge(
          `stopped after ${MAX_CONSECUTIVE_FAILURES} judge failures in a row: ${streaks.judge.last}`,
        );
      }
    }
    bar.update(++done);
  }
  if (accumulator.answered === 0) throw new StageStopped(`no answer was generated: ${streaks.answer.last}`);
  return accumulator.build();
}

export interface AnswerStageOutcome {
  runs: RunJson[];
  /** True when the stage was requested and could not answer for some run. */
  failed: boolean;
}

/**
 * The optional answer stage. For each measured run that kept its final hits (PowerContext runs and
 * peers, not the oracle), a generator answers every scored question from those hits; the answers are
 * scored with exact match, token F1 and BLEU-1 against the gold answers and, with a judge model, graded
 * by an LLM judge under the chosen policy. Each run gets an `answers` object; retrieval figures are not
 * touched. Without an answer model nothing runs and no run gets `answers`.
 */
export async function runAnswerStage(
  context: EvalContext,
  runs: readonly RunJson[],
  env: RuntimeEnv,
): Promise<AnswerStageOutcome> {
  const { args } = context;
  if (!answerStageRequested(args)) {
    if (args.judgeModel) warn(context, `--judge-model ignored: ${NO_ANSWER_MODEL}`);
    return { runs: [...runs], failed: false };
  }
  const eligible = (run: RunJson): run is MeasuredRun =>
    run.measured && context.finalHits?.has(runLabel(run)) === true;
  let models: Models;
  try {
    models = { answer: generatorFor(args.answerModel!, env, args), judge: { reason: NO_JUDGE_MODEL } };
  } catch (error) {
    const reason = `the answer model is not usable: ${describe(error)}`;
    warn(context, `answer stage not measured: ${reason}`);
    return {
      runs: runs.map((run) => (eligible(run) ? { ...run, answers: { measured: false, reason } } : run)),
      failed: true,
    };
  }
  if (args.judgeModel) {
    try {
      models.judge = {
        generator: generatorFor(args.judgeModel, env, args),
        identity: {
          model: args.judgeModel,
          policy: args.judgePolicy,
          prompt: JUDGE_PROMPT_IDS[args.judgePolicy],
        },
      };
    } catch (error) {
      models.judge = { reason: `the judge model is not usable: ${describe(error)}` };
      warn(context, `judge not measured: ${models.judge.reason}`);
    }
  }

  const streaks = { answer: new FailureStreak(), judge: new FailureStreak() };
  let stopped: string | undefined;
  let failed = false;
  const answeredRuns: RunJson[] = [];
  for (const run of runs) {
    if (!eligible(run)) {
      answeredRuns.push(run);
      continue;
    }
    if (stopped) {
      answeredRuns.push({ ...run, answers: { measured: false, reason: stopped } });
      continue;
    }
    try {
      const answers = await answerRun(context, run, context.finalHits!.get(runLabel(run))!, models, streaks);
      answeredRuns.push({ ...run, answers });
      if (answers.failed_questions > 0) {
        warn(context, `${runLabel(run)}: ${answers.failed_questions} answers failed (scored 0)`);
      }
    } catch (error) {
      if (!(error instanceof StageStopped)) throw error;
      stopped = error.message;
      failed = true;
      warn(context, `answer stage for ${runLabel(run)} not measured: ${stopped}`);
      answeredRuns.push({ ...run, answers: { measured: false, reason: stopped } });
    }
  }
  return { runs: answeredRuns, failed };
}
