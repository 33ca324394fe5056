import { answerAccuracyLines } from './answer-markdown.js';
import { assemblyMarkdown } from './assembly-retention.js';
import { CATEGORIES, CATEGORY_NAMES, type Category } from './locomo-data.js';
import { METRIC_KEYS, type Metrics } from './metrics.js';
import { runLabel } from './run-accumulator.js';
import type { MeasuredRun, Summary } from './summary-schema.js';

/** Published figures, printed beside ours and never mixed with them. */
export const REFERENCE_ROWS: readonly { label: string; note: string; metrics: Metrics }[] = [
  {
    label: 'DRAGON (LoCoMo paper)',
    note: 'dense retriever over dialog turns, all 10 conversations (Maharana et al. 2024)',
    metrics: { recall_at_5: 0.567, recall_at_10: 0.662, recall_at_25: 0.767, recall_at_50: 0.827 },
  },
];

/** Targets of issue 6 for the hybrid run without a reranker, default embedder. */
export const TARGETS = { finalRecallAt10: 0.662, coarseRecallAt30: 0.8 } as const;

export interface MarkdownContext {
  /** Scored questions per category, all conversations together. */
  categoryCounts: Partial<Record<Category, number>>;
  /** Extra lines for the notes section (e.g. the answer stage). */
  notes: readonly string[];
}

const HEADERS: Record<(typeof METRIC_KEYS)[number], string> = {
  recall_at_1: 'R@1',
  recall_at_5: 'R@5',
  recall_at_10: 'R@10',
  recall_at_25: 'R@25',
  recall_at_30: 'R@30',
  recall_at_50: 'R@50',
  hit_at_10: 'hit@10',
  mrr: 'MRR',
  ndcg_at_10: 'nDCG@10',
  no_hits: 'no hits',
};

const DASH = '—';

/** Recall and hit in percent with one decimal; MRR and nDCG as fractions with three. */
function cell(key: (typeof METRIC_KEYS)[number], value: number | undefined): string {
  if (value === undefined) return DASH;
  return key === 'mrr' || key === 'ndcg_at_10' ? value.toFixed(3) : (value * 100).toFixed(1);
}

const ms = (p50: number | undefined, p95: number | undefined) =>
  p50 === undefined || p95 === undefined ? DASH : `${p50.toFixed(2)} / ${p95.toFixed(2)}`;

function metricTable(runs: readonly MeasuredRun[], pick: 'final' | 'coarse'): string[] {
  const header = `| system | mode | unit | rerank | context | ${METRIC_KEYS.map((key) => HEADERS[key]).join(' | ')} | search p50 / p95 ms | rerank p50 / p95 ms |`;
  const lines = [header, `|---|---|---|---|---|${METRIC_KEYS.map(() => '---:').join('|')}|---:|---:|`];
  for (const run of runs) {
    const metrics = run[pick];
    const latency = run.latency_ms ?? {};
    lines.push(
      `| ${run.system} | ${run.mode} | ${run.unit} | ${run.rerank} | ${run.lexical_context ?? DASH} | ${METRIC_KEYS.map((key) => cell(key, metrics[key])).join(' | ')} ` +
        `| ${ms(latency.search_p50, latency.search_p95)} | ${ms(latency.rerank_p50, latency.rerank_p95)} |`,
    );
  }
  for (const reference of REFERENCE_ROWS) {
    lines.push(
      `| ${reference.label} | dense | turn | published, not measured | ${DASH} | ${METRIC_KEYS.map((key) => cell(key, reference.metrics[key])).join(' | ')} | ${DASH} | ${DASH} |`,
    );
  }
  return lines;
}

function categoryTable(
  runs: readonly MeasuredRun[],
  pick: 'by_category' | 'coarse_by_category',
  key: (typeof METRIC_KEYS)[number],
  context: MarkdownContext,
): string[] {
  const categories = CATEGORIES.filter((category) => (context.categoryCounts[category] ?? 0) > 0);
  const lines = [
    `| run | ${categories.map((c) => `${c} ${CATEGORY_NAMES[c]} (${context.categoryCounts[c]})`).join(' | ')} | all |`,
    `|---|${categories.map(() => '---:').join('|')}|---:|`,
  ];
  for (const run of runs) {
    const groups = run[pick] ?? {};
    const all = pick === 'by_category' ? run.final : run.coarse;
    if (all[key] === undefined) continue;
    lines.push(
      `| ${runLabel(run)} | ${categories.map((c) => cell(key, groups[c]?.[key])).join(' | ')} | ${cell(key, all[key])} |`,
    );
  }
  return lines;
}

function targetLines(runs: readonly MeasuredRun[]): string[] {
  const hybrid = runs.find(
    (run) =>
      run.system === 'powercontext' &&
      run.mode === 'hybrid' &&
      run.rerank === 'none' &&
      run.lexical_context !== 'none' &&
      (run.channels ?? 'fts,vector') === 'fts,vector',
  );
  if (!hybrid) return ['No hybrid run without a reranker in this invocation: targets not checked.'];
  const verdict = (value: number | undefined, target: number) =>
    value === undefined
      ? 'not defined for this run'
      : `${(value * 100).toFixed(1)} (${value >= target ? 'met' : 'missed'})`;
  return [
    `- hybrid final recall@10 (limit ${hybrid.final_k}) >= ${(TARGETS.finalRecallAt10 * 100).toFixed(1)}: ` +
      verdict(hybrid.final.recall_at_10, TARGETS.finalRecallAt10),
    `- hybrid coarse recall@30 (limit 50 curve) >= ${(TARGETS.coarseRecallAt30 * 100).toFixed(1)}: ` +
      verdict(hybrid.coarse.recall_at_30, TARGETS.coarseRecallAt30),
  ];
}

/**
 * R@k of the no-rerank powercontext runs per channel set (RFC 0013), when more than one set was
 * measured: what `--channels` prints.
 */
function channelLines(runs: readonly MeasuredRun[]): string[] {
  const plain = runs.filter((run) => run.system === 'powercontext' && run.rerank === 'none');
  if (new Set(plain.map((run) => run.channels ?? 'fts,vector')).size < 2) return [];
  const lines = [
    '',
    '## Search channels (RFC 0013)',
    '',
    'No reranker; final = one search with limit final_k, coarse = one search with limit 50.',
    '',
    '| run | channels | context | final R@1 | final R@5 | final R@10 | coarse R@30 | coarse R@50 | search p50 / p95 ms |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const run of plain) {
    const latency = run.latency_ms ?? {};
    lines.push(
      `| ${runLabel(run)} | ${run.channels ?? DASH} | ${run.lexical_context ?? DASH} | ${cell('recall_at_1', run.final.recall_at_1)} | ` +
        `${cell('recall_at_5', run.final.recall_at_5)} | ${cell('recall_at_10', run.final.recall_at_10)} | ` +
        `${cell('recall_at_30', run.coarse.recall_at_30)} | ${cell('recall_at_50', run.coarse.recall_at_50)} | ` +
        `${ms(latency.search_p50, latency.search_p95)} |`,
    );
  }
  return lines;
}

/** The human-readable report written to `<out>/summary.md`. */
export function summaryMarkdown(summary: Summary, context: MarkdownContext): string {
  const d = summary.dataset;
  const measured = summary.runs.filter((run): run is MeasuredRun => run.measured);
  const unmeasured = summary.runs.filter((run) => !run.measured);
  const lines = [
    '# LoCoMo evidence retrieval',
    '',
    `Dataset \`${d.file}\` (sha256 \`${d.sha256}\`): ${d.conversations} conversation${d.conversations === 1 ? '' : 's'}, ${d.questions} questions, ` +
      `${d.scored_questions} scored (${d.excluded_questions ?? d.questions - d.scored_questions} excluded: no resolvable evidence); ` +
      `${d.unresolved_evidence_ids} unresolvable evidence ids, ${d.repaired_evidence_ids ?? 0} repaired.`,
    `Unit: ${d.unit ?? 'turn'} (${d.units ?? '?'} units${d.merged_duplicate_units ? `, ${d.merged_duplicate_units} with the exact text of an earlier unit merged into it` : ''}` +
      `${d.unresolved_observation_ids ? `, ${d.unresolved_observation_ids} unresolvable observation turn ids` : ''}).`,
  ];
  if (summary.config) {
    const c = summary.config;
    lines.push(
      `Embedding profile \`${c.embedding_profile}\`, retrieval policy \`${c.retrieval_policy}\`; generated ${c.generated_at}.`,
    );
  }
  lines.push(
    '',
    "Recall@k is the fraction of a question's evidence turn ids found in the top k units (LoCoMo paper), averaged over " +
      'questions, all categories together (category 5, adversarial, included). Recall and hit@10 in percent; MRR and ' +
      `nDCG@10 as fractions. ${DASH} = not defined for the run (k above the search limit). Reference rows are published ` +
      'figures, not measured here.',
    '',
    '## Final hits',
    '',
    'No reranker: one search with limit final_k. Rerank runs: the hits the runtime returned. Oracle: the best order any ' +
      'reranker could give the coarse pool of size top_k.',
    '',
    ...metricTable(measured, 'final'),
    '',
    '## Coarse curve',
    '',
    "No reranker and peers: one search with limit 50. Rerank runs: the trace's candidate pool. Oracle: the top_k pool in fused order.",
    '',
    ...metricTable(measured, 'coarse'),
    '',
    '## Final recall@10 by category (scored questions)',
    '',
    ...categoryTable(measured, 'by_category', 'recall_at_10', context),
    '',
    '## Coarse recall@30 by category',
    '',
    ...categoryTable(measured, 'coarse_by_category', 'recall_at_30', context),
    ...channelLines(measured),
    '',
    '## Targets (issue 6; no reranker, default embedder)',
    '',
    ...targetLines(measured),
  );
  const withUsage = measured.filter((run) => run.usage);
  if (withUsage.length > 0) {
    lines.push(
      '',
      '## Rerank usage',
      '',
      '| run | requests | calls | input tokens | output tokens | total tokens |',
    );
    lines.push('|---|---:|---:|---:|---:|---:|');
    for (const run of withUsage) {
      const u = run.usage!;
      lines.push(
        `| ${runLabel(run)} | ${u.requests} | ${u.calls} | ${u.input_tokens ?? DASH} | ${u.output_tokens ?? DASH} | ${u.total_tokens ?? DASH} |`,
      );
    }
  }
  lines.push(...assemblyMarkdown(measured.map((run) => ({ label: runLabel(run), assembly: run.assembly }))));
  lines.push('', ...answerAccuracyLines(measured));
  if (unmeasured.length > 0) {
    lines.push('', '## Not measured', '', '| run | reason |', '|---|---|');
    for (const run of unmeasured) lines.push(`| ${runLabel(run)} (${run.unit}) | ${run.reason} |`);
  }
  if (context.notes.length > 0) lines.push('', '## Notes', '', ...context.notes.map((note) => `- ${note}`));
  return `${lines.join('\n')}\n`;
}
