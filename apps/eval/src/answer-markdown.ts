import { ABSTAIN_ANSWER } from './answer-prompts.js';
import { type AnswersJson, type MeasuredAnswersJson, NO_ANSWER_MODEL } from './answers-schema.js';
import { CATEGORIES, CATEGORY_NAMES } from './locomo-data.js';
import { runLabel } from './run-accumulator.js';
import type { MeasuredRun } from './summary-schema.js';

type MeasuredAnswers = MeasuredAnswersJson;

const DASH = '—';
const percent = (value: number | undefined) => (value === undefined ? DASH : (value * 100).toFixed(1));

/** "strict, openai:gpt-x": the policy and model every judge figure is printed with. */
function judgeLabel(answers: MeasuredAnswers): string {
  return answers.judge.measured ? `${answers.judge.policy}, ${answers.judge.model}` : 'not measured';
}

function judgeAccuracy(answers: MeasuredAnswers): string {
  return answers.judge.measured ? percent(answers.judge.accuracy) : DASH;
}

/**
 * The "Answer accuracy" section of summary.md: the answer stage's figures in tables of their own,
 * each judge figure beside its policy and model. Never mixed with the retrieval tables.
 */
export function answerAccuracyLines(runs: readonly MeasuredRun[]): string[] {
  const lines = ['## Answer accuracy (answer stage; not retrieval)', ''];
  const withAnswers = runs.filter((run) => run.answers !== undefined);
  if (withAnswers.length === 0) return [...lines, `Not measured: ${NO_ANSWER_MODEL}.`];
  const measured = withAnswers.filter(
    (run): run is MeasuredRun & { answers: MeasuredAnswers } => run.answers!.measured,
  );
  lines.push(
    "A generator answered each scored question from the run's final hits (at most final_k, with their session dates), " +
      "and the answers were scored against the dataset's gold answers. Category 5 (adversarial) expects " +
      `"${ABSTAIN_ANSWER}". Exact match, token F1 and BLEU-1 compare the answers after lower-casing and removing ` +
      'punctuation and the articles a, an and the (no stemming); a failed answer scores 0. The LLM judge grades each ' +
      'answer under the policy named beside its figure. These figures measure answers, not retrieval: do not compare ' +
      'them with recall.',
    '',
  );
  if (measured.length > 0) {
    lines.push(
      '| run | answer model | questions | failed | EM | token F1 | BLEU-1 | LLM judge accuracy | judge (policy, model) | answer p50 / p95 ms |',
      '|---|---|---:|---:|---:|---:|---:|---:|---|---:|',
    );
    for (const run of measured) {
      const a = run.answers;
      lines.push(
        `| ${runLabel(run)} | ${a.answer_model} | ${a.questions} | ${a.failed_questions} | ${percent(a.exact_match)} | ` +
          `${percent(a.token_f1)} | ${percent(a.bleu_1)} | ${judgeAccuracy(a)} | ${judgeLabel(a)} | ` +
          `${a.latency_ms.answer_p50.toFixed(1)} / ${a.latency_ms.answer_p95.toFixed(1)} |`,
      );
    }
    const categories = CATEGORIES.filter((category) =>
      measured.some((run) => run.answers.by_category[category] !== undefined),
    );
    const header = `| run | ${categories.map((c) => `${c} ${CATEGORY_NAMES[c]}`).join(' | ')} |`;
    const rule = `|---|${categories.map(() => '---:').join('|')}|`;
    lines.push('', '### Token F1 by category', '', header, rule);
    for (const run of measured) {
      const cells = categories.map((c) => percent(run.answers.by_category[c]?.token_f1));
      lines.push(`| ${runLabel(run)} | ${cells.join(' | ')} |`);
    }
    const judged = measured.filter((run) => run.answers.judge.measured);
    if (judged.length > 0) {
      lines.push(
        '',
        '### LLM judge accuracy by category',
        '',
        header.replace('| run |', '| run | judge (policy, model) |'),
      );
      lines.push(rule.replace('|---|', '|---|---|'));
      for (const run of judged) {
        const cells = categories.map((c) => percent(run.answers.by_category[c]?.judge_accuracy));
        lines.push(`| ${runLabel(run)} | ${judgeLabel(run.answers)} | ${cells.join(' | ')} |`);
      }
    }
    const judgeReasons = new Set(
      measured.flatMap((run) => (run.answers.judge.measured ? [] : [run.answers.judge.reason])),
    );
    for (const reason of judgeReasons) lines.push('', `LLM judge not measured: ${reason}.`);
  }
  const failed = withAnswers.filter((run) => !run.answers!.measured);
  if (failed.length > 0) {
    lines.push('', '| run (answers not measured) | reason |', '|---|---|');
    for (const run of failed) {
      const answers = run.answers as Extract<AnswersJson, { measured: false }>;
      lines.push(`| ${runLabel(run)} | ${answers.reason} |`);
    }
  }
  return lines;
}
