import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createProgressBar } from '@powercontext/cli-support';
import { createRuntime, type Runtime } from '@powercontext/runtime';
import { answerStageRequested, runAnswerStage } from './answer-stage.js';
import { COARSE_DEPTH, channelSets, type EvalArgs, REPO_ROOT, type SearchMode } from './args.js';
import { describe, type EvalContext, type QuestionRecord, record, warn } from './eval-context.js';
import { keepFinalHits } from './final-hits.js';
import { type IngestedConversation, ingestConversation, REMEMBER_BATCH_SIZE } from './ingest.js';
import { buildConversation, type Category, type EvalConversation, readLocomoFile } from './locomo-data.js';
import { RECALL_KS } from './metrics.js';
import { loadRecallPlot, type RecallCurve } from './optional-modules.js';
import { runPeers } from './peer-runs.js';
import { coarseMode, lexicalContextOf, rerankRuns } from './powercontext-runs.js';
import { runLabel } from './run-accumulator.js';
import {
  coarseRuntimeEnv,
  LEXICAL_CONTEXT_WEIGHTS,
  type RuntimeEnv,
  SEARCH_CHANNELS,
} from './runtime-env.js';
import { REFERENCE_ROWS, summaryMarkdown } from './summary-markdown.js';
import { type RunJson, type Summary, validateSummary } from './summary-schema.js';

export type { QuestionRecord } from './eval-context.js';
export { describe } from './eval-context.js';

export interface HarnessOptions {
  /** Environment the runtime settings pass through from; default process.env. */
  env?: RuntimeEnv;
  /** Progress bars and log lines; default process.stdout. */
  stream?: NodeJS.WriteStream;
}

export interface HarnessOutcome {
  summary: Summary;
  markdown: string;
  files: string[];
  questions: QuestionRecord[];
  warnings: string[];
  /** True when a requested run failed (not when it was merely not measurable). */
  failed: boolean;
}

function datasetPath(file: string): string {
  const relative = path.relative(REPO_ROOT, file);
  return relative.startsWith(`..${path.sep}..${path.sep}`) || path.isAbsolute(relative) ? file : relative;
}

function recallCurves(runs: readonly RunJson[]): RecallCurve[] {
  const curves: RecallCurve[] = [];
  for (const run of runs) {
    if (!run.measured || run.system === 'oracle') continue;
    const metrics = run.rerank === 'none' ? run.coarse : run.final;
    const points = RECALL_KS.flatMap((k) => {
      const recall = metrics[`recall_at_${k}`];
      return recall === undefined ? [] : [{ k, recall }];
    });
    curves.push({ label: runLabel(run), points });
  }
  for (const reference of REFERENCE_ROWS) {
    const points = RECALL_KS.flatMap((k) => {
      const recall = reference.metrics[`recall_at_${k}`];
      return recall === undefined ? [] : [{ k, recall }];
    });
    curves.push({ label: `${reference.label.split(' ')[0]} (published, not measured)`, points });
  }
  return curves;
}

/** Runs the LoCoMo evaluation and writes summary.json, summary.md, questions.json and recall.svg. */
export async function runLocomoEval(args: EvalArgs, options: HarnessOptions = {}): Promise<HarnessOutcome> {
  const env = options.env ?? process.env;
  const stream = options.stream ?? process.stdout;
  const context: EvalContext = { args, stream, warnings: [], records: new Map(), pools: new Map() };
  if (answerStageRequested(args)) context.finalHits = new Map();
  const notes: string[] = [];

  const { data, sha256 } = await readLocomoFile(args.data);
  const wanted = args.conversations;
  if (wanted) {
    const unknown = wanted.filter((id) => !data.some((item) => item.sample_id === id));
    if (unknown.length > 0) throw new Error(`${args.data} has no conversation ${unknown.join(', ')}`);
  }
  const selected = wanted ? data.filter((item) => wanted.includes(item.sample_id)) : data;
  const built = selected.map((raw) => buildConversation(raw, args.unit));
  const conversations: EvalConversation[] = built.map((item) => item.conversation);
  const sum = (pick: (stats: (typeof built)[number]['stats']) => number) =>
    built.reduce((total, item) => total + pick(item.stats), 0);
  const unresolved = built.flatMap((item) =>
    item.stats.unresolvedEvidenceIds.map((id) => `${item.conversation.id} ${JSON.stringify(id)}`),
  );
  if (unresolved.length > 0) warn(context, `unresolvable evidence ids: ${unresolved.join(', ')}`);

  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pc-eval-locomo-'));
  const runs: RunJson[] = [];
  let failed = false;
  let runtimeInfo: { embedder: string; policy: string } | undefined;
  let mergedByRuntime = 0;
  const scratchDirs: string[] = [];
  let primaryContext: string | undefined;
  // With --channels, every store is searched with the default channels first; the other channel sets
  // search the primary store afterwards (the store indexes entities whatever the channels).
  const sets = args.channels ? channelSets(args.channels) : [];
  try {
    // The primary store (the configured neighbour context, or none with --lexical-context off) serves
    // the rerank runs too; the comparison store without context gets a data dir of its own.
    const variants = args.lexicalContext === 'both' ? (['on', 'off'] as const) : [args.lexicalContext];
    let ingested: IngestedConversation[] = [];
    let primaryEnv: RuntimeEnv = {};
    for (const [index, variant] of variants.entries()) {
      const primary = index === 0;
      const dir = primary ? dataDir : await mkdtemp(path.join(os.tmpdir(), 'pc-eval-locomo-'));
      if (!primary) scratchDirs.push(dir);
      const variantEnv = coarseRuntimeEnv(env, dir, args);
      if (variant === 'off') variantEnv[LEXICAL_CONTEXT_WEIGHTS] = 'none';
      if (sets[0]) variantEnv[SEARCH_CHANNELS] = sets[0].join(',');
      if (primary) primaryEnv = variantEnv;
      const runtime = await createRuntime({ env: variantEnv });
      try {
        // With the configured context already none there is nothing to compare against.
        if (!primary && lexicalContextOf(runtime) === primaryContext) break;
        primaryContext ??= lexicalContextOf(runtime);
        const capabilities = runtime.capabilities();
        if (primary) {
          runtimeInfo = {
            embedder: capabilities.embeddingProfile.id,
            policy: capabilities.retrievalPolicyId,
          };
        }
        const stored = await ingestAll(runtime, conversations, args, stream, () => {
          if (primary) mergedByRuntime++;
        });
        if (primary) ingested = stored;
        for (const mode of args.modes) {
          const { plain, oracle } = await coarseMode(context, runtime, stored, mode, primary);
          runs.push(plain, oracle);
        }
      } finally {
        await runtime.close();
      }
    }
    for (const set of sets.slice(1)) {
      const runtime = await createRuntime({ env: { ...primaryEnv, [SEARCH_CHANNELS]: set.join(',') } });
      try {
        for (const mode of args.modes) {
          const { plain, oracle } = await coarseMode(context, runtime, ingested, mode, false);
          runs.push(plain, oracle);
        }
      } finally {
        await runtime.close();
      }
    }
    const rerank = await rerankRuns(context, ingested, dataDir, env);
    runs.push(...rerank.runs);
    failed ||= rerank.failed;
  } finally {
    for (const dir of [dataDir, ...scratchDirs]) await rm(dir, { recursive: true, force: true });
  }
  if (mergedByRuntime > 0)
    warn(context, `${mergedByRuntime} units were stored as duplicates of an earlier unit`);

  if (args.peers) {
    const peers = await runPeers(args, conversations, stream);
    for (const message of peers.warnings) warn(context, message);
    for (const item of peers.records) {
      record(context, item.question, item.label, item.final, item.coarse);
      keepFinalHits(context, item.label, item.question, item.finalUnits);
    }
    runs.push(...peers.runs);
    failed ||= peers.failed;
  }

  const sorted = [...runs].sort((a, b) => runOrder(a, args) - runOrder(b, args));
  const answered = await runAnswerStage(context, sorted, env);
  failed ||= answered.failed;
  const ordered = answered.runs;
  const summary = validateSummary({
    dataset: {
      file: datasetPath(args.data),
      sha256,
      conversations: conversations.length,
      questions: sum((stats) => stats.questions),
      scored_questions: conversations.reduce((total, item) => total + item.questions.length, 0),
      unresolved_evidence_ids: unresolved.length,
      excluded_questions: sum((stats) => stats.excludedQuestions),
      repaired_evidence_ids: sum((stats) => stats.repairedEvidenceIds),
      unit: args.unit,
      units: conversations.reduce((total, item) => total + item.units.length, 0),
      merged_duplicate_units: sum((stats) => stats.mergedDuplicateUnits) + mergedByRuntime,
      ...(args.unit === 'observation'
        ? { unresolved_observation_ids: sum((stats) => stats.unresolvedObservationIds.length) }
        : {}),
    },
    config: {
      generated_at: new Date().toISOString(),
      embedding_profile: runtimeInfo!.embedder,
      retrieval_policy: runtimeInfo!.policy,
      conversation_ids: conversations.map((item) => item.id),
      coarse_limit: COARSE_DEPTH,
      remember_batch_size: REMEMBER_BATCH_SIZE,
    },
    runs: ordered,
  });

  const categoryCounts: Partial<Record<Category, number>> = {};
  for (const question of conversations.flatMap((item) => item.questions)) {
    categoryCounts[question.category] = (categoryCounts[question.category] ?? 0) + 1;
  }
  if (sets.length > 1) {
    notes.push(
      `Search channels (--channels ${args.channels!.join(',')}): each channel set searched the primary store (context ${primaryContext ?? 'as configured'}); the store indexed every entry's entities whatever the channels.`,
    );
  }
  const markdown = summaryMarkdown(summary, { categoryCounts, notes });
  const questions = [...context.records.values()];
  await mkdir(args.out, { recursive: true });
  const files = [
    path.join(args.out, 'summary.json'),
    path.join(args.out, 'summary.md'),
    path.join(args.out, 'questions.json'),
  ];
  await writeFile(files[0]!, `${JSON.stringify(summary, null, 2)}\n`);
  await writeFile(files[1]!, markdown);
  await writeFile(files[2]!, `[\n${questions.map((item) => JSON.stringify(item)).join(',\n')}\n]\n`);

  const plot = await loadRecallPlot();
  if (typeof plot === 'string') {
    warn(context, `recall.svg not written: ${plot}`);
  } else {
    try {
      const svg = await plot(recallCurves(summary.runs));
      const file = path.join(args.out, 'recall.svg');
      await writeFile(file, svg);
      files.push(file);
    } catch (error) {
      warn(context, `recall.svg not written: the plot failed: ${describe(error)}`);
    }
  }
  return { summary, markdown, files, questions, warnings: context.warnings, failed };
}

/**
 * powercontext runs per mode (no rerank, rerank, oracle; the default channels before the other channel
 * sets, in `channelSets` order; with context before without), then peers.
 */
function runOrder(run: RunJson, args: EvalArgs): number {
  const system = run.system === 'powercontext' || run.system === 'oracle' ? 0 : 1;
  const mode = Math.max(0, args.modes.indexOf(run.mode as SearchMode));
  const rerank = run.rerank === 'none' ? 0 : run.rerank === 'oracle' ? 2 : 1;
  const context = run.lexical_context === 'none' && args.lexicalContext === 'both' ? 1 : 0;
  const sets = args.channels ? channelSets(args.channels).map((set) => set.join(',')) : [];
  const channels = Math.max(0, sets.indexOf(run.channels ?? ''));
  return system * 100_000 + mode * 1_000 + context * 100 + channels * 10 + rerank;
}

/** Remembers every conversation in a scope of its own, with one progress bar. */
async function ingestAll(
  runtime: Runtime,
  conversations: readonly EvalConversation[],
  args: EvalArgs,
  stream: NodeJS.WriteStream,
  onDuplicate: () => void,
): Promise<IngestedConversation[]> {
  const totalUnits = conversations.reduce((total, item) => total + item.units.length, 0);
  const context = lexicalContextOf(runtime);
  const bar = createProgressBar(`remember ${args.unit} units (context ${context})`, totalUnits, stream);
  let remembered = 0;
  bar.update(0);
  const ingested: IngestedConversation[] = [];
  for (const conversation of conversations) {
    ingested.push(
      await ingestConversation(
        runtime,
        conversation,
        args.unit,
        (count) => {
          remembered += count;
          bar.update(remembered);
        },
        onDuplicate,
      ),
    );
  }
  return ingested;
}
