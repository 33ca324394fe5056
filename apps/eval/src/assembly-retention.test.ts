import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AssemblyReport, OmittedCandidate, SelectedChunk } from '@powercontext/runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_ARGS, parseArgs } from './args.js';
import { AssemblyRetention } from './assembly-retention.js';
import { runLocomoEval } from './harness.js';
import { locomoFixture } from './locomo-fixture.test.helper.js';
import { type MeasuredRun, validateSummary } from './summary-schema.js';

const silent = { isTTY: false, write: () => true } as unknown as NodeJS.WriteStream;

/** A report with the fields retention reads: selected and omitted entry ids, tokens, the contract. */
function report(selected: string[], omitted: [string, OmittedCandidate['reason']][]): AssemblyReport {
  return {
    contract: {
      version: 'powercontext.assembly.contract.v1',
      tokenBudget: 100,
      maxChunks: 10,
      perSourceCap: 100,
      duplicates: { exact: 'x', near: { rule: 'y', threshold: 0.8 } },
      ordering: 'evidence_order',
      framing: 'f',
      tokenizer: 'o200k_base',
    },
    contractDigest: 'sha256:c',
    selected: selected.map((entryId) => ({ entryId }) as SelectedChunk),
    omitted: omitted.map(([entryId, reason]) => ({ entryId, reason }) as OmittedCandidate),
    totalTokens: 90,
  } as unknown as AssemblyReport;
}

const TURNS: Record<string, string[]> = { a: ['D1:1'], b: ['D1:2', 'D1:3'], c: ['D2:1'], d: ['D2:2'] };
const turnsOf = (entryId: string) => TURNS[entryId] ?? [];

describe('AssemblyRetention', () => {
  it('measures the share of the final hits’ evidence that survives packing, and counts omissions', () => {
    const retention = new AssemblyRetention();
    // Evidence D1:1, D1:3 and D2:1 are in the final hits a, b, c; b is dropped for the budget.
    retention.add(
      report(
        ['a', 'c'],
        [
          ['b', 'token_budget'],
          ['d', 'duplicate_of'],
        ],
      ),
      ['a', 'b', 'c', 'd'],
      ['D1:1', 'D1:3', 'D2:1', 'D9:9'],
      turnsOf,
    );
    // No evidence in the hits: not in the retention mean; a candidate the reranker left out is not counted.
    retention.add(report(['d'], [['c', 'not_selected']]), ['d'], ['D5:5'], turnsOf);
    const built = retention.build()!;
    expect(built).toMatchObject({
      questions: 2,
      questions_with_evidence: 1,
      evidence_retention: 0.6667,
      mean_selected_chunks: 1.5,
      mean_tokens: 90,
      omissions: { token_budget: 1, chunk_limit: 0, source_cap: 0, duplicate_of: 1 },
      evidence_omissions: { token_budget: 1, chunk_limit: 0, source_cap: 0, duplicate_of: 0 },
      contract: { token_budget: 100, near_duplicate_threshold: 0.8, tokenizer: 'o200k_base' },
    });
  });

  it('builds nothing when no question was assembled', () => {
    expect(new AssemblyRetention().build()).toBeUndefined();
  });

  it('reads --assembly-budget', () => {
    expect(parseArgs(['--assembly-budget', '512'])).toMatchObject({ assemblyBudget: 512 });
    expect(parseArgs([])).toEqual(DEFAULT_ARGS);
    expect(() => parseArgs(['--assembly-budget', '0'])).toThrow(/--assembly-budget/);
  });
});

describe('runLocomoEval --assembly-budget', () => {
  let dir: string | undefined;
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('adds an assembly object to the measured powercontext runs, and a tight budget loses evidence', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pc-eval-assembly-'));
    const data = path.join(dir, 'fixture.json');
    await writeFile(data, JSON.stringify([locomoFixture()]));
    const base = { ...DEFAULT_ARGS, data, modes: ['fts' as const], finalK: 5 };
    const roomy = await runLocomoEval(
      { ...base, out: path.join(dir, 'roomy'), assemblyBudget: 4_000 },
      { env: {}, stream: silent },
    );
    const plain = roomy.summary.runs.find(
      (run): run is MeasuredRun => run.measured && run.system === 'powercontext',
    )!;
    expect(plain.assembly).toMatchObject({
      contract: { token_budget: 4_000, max_chunks: 5, tokenizer: 'o200k_base' },
      questions: 3,
      questions_with_evidence: 3,
      evidence_retention: 1,
      omissions: { token_budget: 0 },
    });
    expect(roomy.summary.runs.find((run) => run.system === 'oracle')).not.toHaveProperty('assembly');
    const written = validateSummary(
      JSON.parse(await readFile(path.join(dir, 'roomy', 'summary.json'), 'utf8')),
    );
    expect(written.runs[0]).toHaveProperty('assembly');
    expect(roomy.markdown).toContain('## Context assembly');

    const tight = await runLocomoEval(
      { ...base, out: path.join(dir, 'tight'), assemblyBudget: 80 },
      { env: {}, stream: silent },
    );
    const squeezed = (tight.summary.runs[0] as MeasuredRun).assembly!;
    expect(squeezed.omissions.token_budget).toBeGreaterThan(0);
    expect(squeezed.evidence_retention!).toBeLessThan(1);
    expect(squeezed.mean_tokens).toBeLessThanOrEqual(80);
  }, 240_000);
});
