import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  chatCompletionAnswer,
  closedPort,
  type LoopbackServer,
  sendJson,
  startLoopbackServer,
} from '@powercontext/inference-ai-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWER_PROMPT_ID, JUDGE_PROMPT_IDS } from './answer-prompts.js';
import { type MeasuredAnswersJson, NO_JUDGE_MODEL } from './answers-schema.js';
import { DEFAULT_ARGS, type EvalArgs } from './args.js';
import { type HarnessOutcome, runLocomoEval } from './harness.js';
import { locomoFixture } from './locomo-fixture.test.helper.js';
import { type MeasuredRun, validateSummary } from './summary-schema.js';

const silent = { isTTY: false, write: () => true } as unknown as NodeJS.WriteStream;

type Message = { role?: string; content?: unknown };
const messagesOf = (body: unknown) => (body as { messages?: Message[] }).messages ?? [];
const textOf = (body: unknown, role: string) =>
  messagesOf(body)
    .filter((message) => message.role === role)
    .map((message) =>
      typeof message.content === 'string' ? message.content : JSON.stringify(message.content),
    )
    .join('\n');
const field = (text: string, name: string) => JSON.parse(new RegExp(`^${name}: (.*)$`, 'm').exec(text)![1]!);

const VASE = 'Which turquoise vase did Alice make for her grandmother?';
const LIGHTS = 'When did Alice see the northern lights?';
const HOBBIES = 'Which pet tortoise and pottery hobby do Alice and Bob have?';

/** The fake generator's answers, by question (gold answers: see locomo-fixture.test.helper.ts). */
const ANSWERS: Record<string, string> = {
  [VASE]: 'a lopsided turquoise vase', // gold "A lopsided turquoise vase": EM 1, F1 1, BLEU-1 1
  [LIGHTS]: 'May 2023', // gold "April 2023": EM 0, F1 0.5, BLEU-1 0.5
  [HOBBIES]: 'Sheldon the tortoise, and pottery', // gold "a tortoise; pottery": EM 0, F1 2/3, BLEU-1 0.5
};
/** The fake judge's verdicts per policy: strict accepts only the vase, topical also the hobbies. */
const CORRECT: Record<'strict' | 'topical', string[]> = { strict: [VASE], topical: [VASE, HOBBIES] };

const isJudge = (body: unknown) => textOf(body, 'system').startsWith('You grade');

/** A loopback "model" serving both roles: the answer generator and the judge. */
function fakeModels(options: { failAnswerFor?: string } = {}) {
  return startLoopbackServer((request, response) => {
    const user = textOf(request.body, 'user');
    const question = field(user, 'Question') as string;
    if (isJudge(request.body)) {
      const policy = textOf(request.body, 'system').includes('Policy: strict.') ? 'strict' : 'topical';
      const verdict = CORRECT[policy].includes(question) ? 'correct' : 'incorrect';
      chatCompletionAnswer(response, request, JSON.stringify({ verdict, reason: 'fake judge' }), {
        prompt_tokens: 50,
        completion_tokens: 5,
        total_tokens: 55,
      });
      return;
    }
    if (question === options.failAnswerFor) {
      sendJson(response, 500, { error: { message: 'fake outage', type: 'server_error' } });
      return;
    }
    chatCompletionAnswer(response, request, JSON.stringify({ answer: ANSWERS[question] }), {
      prompt_tokens: 100,
      completion_tokens: 10,
      total_tokens: 110,
    });
  });
}

const answersOf = (outcome: HarnessOutcome, label: string) => {
  const run = outcome.summary.runs.find(
    (item): item is MeasuredRun => item.measured && `${item.system} ${item.mode}` === label,
  );
  if (!run) throw new Error(`no measured run ${label}`);
  return run.answers;
};

describe('the answer stage, end to end over HTTP with fake models on the fixture', () => {
  let dir: string;
  let server: LoopbackServer;
  let args: EvalArgs;
  let outcome: HarnessOutcome;

  beforeAll(async () => {
    server = await fakeModels();
    dir = await mkdtemp(path.join(os.tmpdir(), 'pc-eval-answer-test-'));
    const data = path.join(dir, 'fixture.json');
    await writeFile(data, JSON.stringify([locomoFixture()]));
    args = {
      ...DEFAULT_ARGS,
      data,
      out: path.join(dir, 'strict'),
      modes: ['hybrid'],
      finalK: 3,
      peers: true,
      lexicalContext: 'on',
      answerModel: 'openai-compatible:fake-answerer',
      judgeModel: 'openai-compatible:fake-judge',
      judgePolicy: 'strict',
      baseUrl: server.baseUrl,
    };
    outcome = await runLocomoEval(args, { env: {}, stream: silent });
  }, 180_000);

  afterAll(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('answers for every PowerContext and peer run, never for the oracle', () => {
    expect(outcome.failed).toBe(false);
    const labels = outcome.summary.runs.map((run) => `${run.system} ${run.mode} ${'answers' in run}`);
    expect(labels).toEqual([
      'powercontext hybrid true',
      'oracle hybrid false',
      'minisearch fts true',
      'orama fts true',
      'orama hybrid true',
    ]);
    // 4 runs x 3 scored questions, each one answer request and one judge request.
    expect(server.requests).toHaveLength(24);
  });

  it('scores exact match, token F1, BLEU-1 and the strict judge, overall and per category', () => {
    const answers = answersOf(outcome, 'powercontext hybrid') as MeasuredAnswersJson;
    expect(answers).toMatchObject({
      measured: true,
      answer_model: 'openai-compatible:fake-answerer',
      prompt: ANSWER_PROMPT_ID,
      context_hits: 3,
      questions: 3,
      failed_questions: 0,
      exact_match: 0.3333,
      token_f1: 0.7222,
      bleu_1: 0.6667,
      judge: {
        measured: true,
        model: 'openai-compatible:fake-judge',
        policy: 'strict',
        prompt: JUDGE_PROMPT_IDS.strict,
        judged: 3,
        failed: 0,
        accuracy: 0.3333,
      },
      usage: {
        answer: { requests: 3, calls: 3, input_tokens: 300, output_tokens: 30, total_tokens: 330 },
        judge: { requests: 3, calls: 3, input_tokens: 150, output_tokens: 15, total_tokens: 165 },
      },
    });
    expect(answers.by_category).toEqual({
      '1': { questions: 1, exact_match: 0, token_f1: 0.6667, bleu_1: 0.5, judge_accuracy: 0 },
      '2': { questions: 1, exact_match: 0, token_f1: 0.5, bleu_1: 0.5, judge_accuracy: 0 },
      '4': { questions: 1, exact_match: 1, token_f1: 1, bleu_1: 1, judge_accuracy: 1 },
    });
    expect(answers.latency_ms.answer_p50).toBeGreaterThan(0);
    expect(answers.latency_ms.judge_p95).toBeGreaterThan(0);
  });

  it("hands the generator the run's final hits, best first, with their session dates", () => {
    const first = server.requests[0]!;
    expect((first.body as { model: string }).model).toBe('fake-answerer');
    const prompt = textOf(first.body, 'user');
    expect(field(prompt, 'Question')).toBe(VASE);
    const memories = [...prompt.matchAll(/^(\{.*\})$/gm)].map((match) => JSON.parse(match[1]!));
    expect(memories.length).toBeGreaterThan(0);
    expect(memories.length).toBeLessThanOrEqual(3);
    // The hybrid search ranks the evidence turn D2:3 first for this question (see harness.test.ts).
    expect(memories[0]).toEqual({
      date: '3:00 pm on 20 May, 2023',
      text: 'Alice: A lopsided turquoise vase for my grandmother.',
    });
    const judge = server.requests[1]!;
    expect((judge.body as { model: string }).model).toBe('fake-judge');
    expect(field(textOf(judge.body, 'user'), 'Gold answer')).toBe('A lopsided turquoise vase');
    expect(field(textOf(judge.body, 'user'), 'Answer')).toBe(ANSWERS[VASE]);
  });

  it('writes the answers into summary.json and a section of their own in summary.md, beside judge policy and model', async () => {
    const written = validateSummary(JSON.parse(await readFile(path.join(args.out, 'summary.json'), 'utf8')));
    expect(written.runs[0]).toMatchObject({ answers: { measured: true, exact_match: 0.3333 } });
    const markdown = await readFile(path.join(args.out, 'summary.md'), 'utf8');
    const section = markdown.indexOf('## Answer accuracy (answer stage; not retrieval)');
    expect(section).toBeGreaterThan(markdown.indexOf('## Targets'));
    expect(markdown).toContain(
      '| powercontext hybrid | openai-compatible:fake-answerer | 3 | 0 | 33.3 | 72.2 | 66.7 | 33.3 | strict, openai-compatible:fake-judge |',
    );
    expect(markdown).toContain(
      '| powercontext hybrid | strict, openai-compatible:fake-judge | 0.0 | 0.0 | 100.0 |',
    );
    // The retrieval tables above the section carry no accuracy figure.
    expect(markdown.slice(0, section)).not.toMatch(/exact match|token F1|judge/i);
  });
});

describe('the answer stage with other settings', () => {
  let dir: string;
  let data: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pc-eval-answer-test-'));
    data = path.join(dir, 'fixture.json');
    await writeFile(data, JSON.stringify([locomoFixture()]));
  });

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const base = (out: string): EvalArgs => ({
    ...DEFAULT_ARGS,
    data,
    out: path.join(dir, out),
    modes: ['fts'],
    answerModel: 'openai-compatible:fake-answerer',
  });

  it('grades with the topical policy, reaching the models through POWERCONTEXT_SERVER_INFERENCE_BASE_URL', async () => {
    const server = await fakeModels();
    try {
      const outcome = await runLocomoEval(
        { ...base('topical'), judgeModel: 'openai-compatible:fake-judge', judgePolicy: 'topical' },
        { env: { POWERCONTEXT_SERVER_INFERENCE_BASE_URL: server.baseUrl }, stream: silent },
      );
      const answers = answersOf(outcome, 'powercontext fts') as MeasuredAnswersJson;
      expect(answers.judge).toMatchObject({ measured: true, policy: 'topical', accuracy: 0.6667 });
      expect(answers.token_f1).toBe(0.7222);
      expect(textOf(server.requests[1]!.body, 'system')).toContain('Policy: topical.');
    } finally {
      await server.close();
    }
  }, 120_000);

  it('without a judge model, scores the answers and reports the judge as not measured; a failed answer scores 0', async () => {
    const server = await fakeModels({ failAnswerFor: LIGHTS });
    try {
      const outcome = await runLocomoEval(base('no-judge'), {
        env: {
          POWERCONTEXT_SERVER_INFERENCE_BASE_URL: server.baseUrl,
          POWERCONTEXT_SERVER_INFERENCE_GENERATION_MAX_REQUESTS: '1',
        },
        stream: silent,
      });
      const answers = answersOf(outcome, 'powercontext fts') as MeasuredAnswersJson;
      expect(answers).toMatchObject({
        questions: 3,
        failed_questions: 1,
        exact_match: 0.3333,
        // (1 + 0 + 2/3) / 3: the failed answer scores 0.
        token_f1: 0.5556,
        judge: { measured: false, reason: NO_JUDGE_MODEL },
      });
      expect(answers.usage.judge).toBeUndefined();
      expect(server.requests.every((request) => !isJudge(request.body))).toBe(true);
      const markdown = await readFile(path.join(dir, 'no-judge', 'summary.md'), 'utf8');
      expect(markdown).toContain(`LLM judge not measured: ${NO_JUDGE_MODEL}.`);
      expect(outcome.warnings.some((warning) => warning.includes('1 answers failed'))).toBe(true);
    } finally {
      await server.close();
    }
  }, 120_000);

  it('reports the answers as not measured when the model cannot be reached', async () => {
    const port = await closedPort();
    const outcome = await runLocomoEval(base('unreachable'), {
      env: {
        POWERCONTEXT_SERVER_INFERENCE_BASE_URL: `http://127.0.0.1:${port}/v1`,
        POWERCONTEXT_SERVER_INFERENCE_GENERATION_MAX_REQUESTS: '1',
      },
      stream: silent,
    });
    expect(outcome.failed).toBe(true);
    expect(answersOf(outcome, 'powercontext fts')).toEqual({
      measured: false,
      reason: expect.stringMatching(/^no answer was generated: .*inference_unavailable/),
    });
    const markdown = await readFile(path.join(dir, 'unreachable', 'summary.md'), 'utf8');
    expect(markdown).toContain('| powercontext fts | no answer was generated:');
  }, 120_000);
});
