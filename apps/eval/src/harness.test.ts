import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_ANSWER_MODEL } from './answers-schema.js';
import { DEFAULT_ARGS, type EvalArgs, REPO_ROOT } from './args.js';
import { type HarnessOutcome, runLocomoEval } from './harness.js';
import { locomoFixture } from './locomo-fixture.test.helper.js';
import { type MeasuredRun, validateSummary } from './summary-schema.js';

const silent = { isTTY: false, write: () => true } as unknown as NodeJS.WriteStream;

describe('runLocomoEval on a tiny fixture conversation (in-process runtime, temp data dir)', () => {
  let dir: string;
  let args: EvalArgs;
  let outcome: HarnessOutcome;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pc-eval-test-'));
    const data = path.join(dir, 'fixture.json');
    await writeFile(data, JSON.stringify([locomoFixture()]));
    args = {
      ...DEFAULT_ARGS,
      data,
      out: path.join(dir, 'out'),
      modes: ['fts', 'vector', 'hybrid'],
      rerank: 'listwise',
    };
    // An empty environment: no model is configured, so the rerank runs are reported as not measured.
    outcome = await runLocomoEval(args, { env: {}, stream: silent });
  }, 120_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('writes a summary.json that matches the documented schema', async () => {
    const written = JSON.parse(await readFile(path.join(args.out, 'summary.json'), 'utf8'));
    const summary = validateSummary(written);
    // The file is reported relative to the repository when it lies beside it (../shared/...), else absolute.
    expect(path.resolve(REPO_ROOT, summary.dataset.file)).toBe(args.data);
    expect(summary.dataset).toMatchObject({
      conversations: 1,
      questions: 4,
      scored_questions: 3,
      unresolved_evidence_ids: 1,
      excluded_questions: 1,
    });
    expect(summary.dataset.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(written)).not.toContain('null');
  });

  it('reports a plain and an oracle run per mode with and without neighbour context, and the rerank runs as not measured', () => {
    const runs = outcome.summary.runs;
    const key = (run: (typeof runs)[number]) =>
      `${run.system}/${run.mode}/${run.rerank}/${run.measured}/${run.lexical_context ?? '-'}`;
    expect(runs.map(key)).toEqual(
      ['fts', 'vector', 'hybrid'].flatMap((mode) => [
        `powercontext/${mode}/none/true/0.35,0.175`,
        `powercontext/${mode}/listwise/false/-`,
        `oracle/${mode}/oracle/true/0.35,0.175`,
        `powercontext/${mode}/none/true/none`,
        `oracle/${mode}/oracle/true/none`,
      ]),
    );
    const notMeasured = runs.find((run) => !run.measured)!;
    expect(Object.keys(notMeasured).sort()).toEqual(
      ['final_k', 'measured', 'mode', 'reason', 'rerank', 'system', 'top_k', 'unit'].sort(),
    );
    expect(notMeasured).toMatchObject({ reason: expect.stringMatching(/no model configured/) });
  });

  it('leaves keys above final_k absent in final and defines the whole curve in coarse', () => {
    const hybrid = outcome.summary.runs.find(
      (run): run is MeasuredRun => run.measured && run.system === 'powercontext' && run.mode === 'hybrid',
    )!;
    expect(Object.keys(hybrid.final)).toEqual([
      'recall_at_1',
      'recall_at_5',
      'recall_at_10',
      'hit_at_10',
      'mrr',
      'ndcg_at_10',
      'no_hits',
    ]);
    expect(hybrid.coarse.recall_at_50).toBeDefined();
    expect(Object.keys(hybrid.by_category).sort()).toEqual(['1', '2', '4']);
    expect(hybrid.questions).toBe(3);
    expect(hybrid.latency_ms?.search_p50).toBeGreaterThan(0);
  });

  it('finds the evidence of a question that shares its rare words with one turn at rank 1', () => {
    const vase = outcome.questions.find((question) => question.qa_index === 0)!;
    expect(vase.evidence).toEqual(['D2:3']);
    for (const mode of ['fts', 'hybrid']) {
      expect(vase.runs[`powercontext ${mode}`]!.final).toMatchObject({
        recall_at_1: 1,
        mrr: 1,
        hit_at_10: 1,
      });
    }
    const fts = outcome.summary.runs.find(
      (run): run is MeasuredRun => run.measured && run.system === 'powercontext' && run.mode === 'fts',
    )!;
    expect(fts.by_category['4']).toMatchObject({ recall_at_1: 1, recall_at_10: 1, ndcg_at_10: 1 });
  });

  it('writes summary.md with the published reference rows, and the answer stage as not measured', async () => {
    const markdown = await readFile(path.join(args.out, 'summary.md'), 'utf8');
    expect(markdown).toContain('DRAGON (LoCoMo paper)');
    expect(markdown).toContain('published, not measured');
    expect(markdown).toContain(
      `## Answer accuracy (answer stage; not retrieval)\n\nNot measured: ${NO_ANSWER_MODEL}.`,
    );
    expect(outcome.summary.runs.some((run) => 'answers' in run)).toBe(false);
    expect(outcome.failed).toBe(false);
  });

  it('with --channels, measures the default channels, each optional one added, and both (RFC 0013)', async () => {
    const compared = await runLocomoEval(
      {
        ...args,
        modes: ['hybrid'],
        rerank: 'none',
        lexicalContext: 'on',
        channels: ['fts', 'vector', 'entity', 'graph'],
        out: path.join(dir, 'out-channels'),
      },
      { env: {}, stream: silent },
    );
    const plain = compared.summary.runs.filter(
      (run): run is MeasuredRun => run.measured && run.system === 'powercontext',
    );
    expect(plain.map((run) => run.channels)).toEqual([
      'fts,vector',
      'fts,vector,entity',
      'fts,vector,graph',
      'fts,vector,entity,graph',
    ]);
    // The default channels measured here are the run measured without --channels, question by question.
    const before = outcome.summary.runs.find(
      (run): run is MeasuredRun =>
        run.measured &&
        run.system === 'powercontext' &&
        run.mode === 'hybrid' &&
        run.lexical_context !== 'none',
    )!;
    expect(plain[0]!.final).toEqual(before.final);
    expect(plain[0]!.coarse).toEqual(before.coarse);
    const labels = Object.keys(compared.questions[0]!.runs);
    expect(labels).toEqual(
      expect.arrayContaining([
        'powercontext hybrid',
        'powercontext hybrid +entity',
        'powercontext hybrid +graph',
        'powercontext hybrid +entity+graph',
      ]),
    );
    const markdown = await readFile(path.join(dir, 'out-channels', 'summary.md'), 'utf8');
    expect(markdown).toContain('## Search channels (RFC 0013)');
    expect(markdown).toContain(
      '| powercontext hybrid +entity+graph | fts,vector,entity,graph | 0.35,0.175 |',
    );
  }, 120_000);

  it('evaluates observation units through the same path', async () => {
    const observation = await runLocomoEval(
      {
        ...args,
        unit: 'observation',
        modes: ['fts'],
        rerank: 'none',
        lexicalContext: 'on',
        out: path.join(dir, 'out-observation'),
      },
      { env: {}, stream: silent },
    );
    expect(observation.summary.dataset).toMatchObject({
      unit: 'observation',
      units: 4,
      unresolved_observation_ids: 1,
    });
    // --lexical-context on: one store, with the configured neighbour context only.
    expect(observation.summary.runs.map((run) => run.lexical_context)).toEqual(['0.35,0.175', '0.35,0.175']);
    const fts = observation.summary.runs[0]!;
    expect(fts).toMatchObject({ system: 'powercontext', unit: 'observation', measured: true });
    const vase = observation.questions.find((question) => question.qa_index === 0)!;
    expect(vase.runs['powercontext fts']!.final.recall_at_1).toBe(1);
  }, 120_000);
});
