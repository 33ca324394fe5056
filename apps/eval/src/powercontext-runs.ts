import { performance } from 'node:perf_hooks';
import { createProgressBar } from '@powercontext/cli-support';
import { createRuntime, type Runtime } from '@powercontext/runtime';
import { COARSE_DEPTH, type EvalArgs, type SearchMode } from './args.js';
import { AssemblyRetention, evalAssemblyContract } from './assembly-retention.js';
import { describe, type EvalContext, record, warn } from './eval-context.js';
import { keepFinalHits } from './final-hits.js';
import type { IngestedConversation } from './ingest.js';
import type { EvalQuestion } from './locomo-data.js';
import { oracleOrder, questionMetrics, type RankedCoverage } from './metrics.js';
import { RunAccumulator, type RunIdentity, unmeasuredRun } from './run-accumulator.js';
import { missingRerankModel, type RuntimeEnv, rerankRuntimeEnv } from './runtime-env.js';
import type { RunJson } from './summary-schema.js';

const poolLimitOf = (args: EvalArgs) => Math.max(args.topK, args.finalK);

function coverageOf(ingested: IngestedConversation, entryIds: readonly string[]): RankedCoverage {
  return entryIds.map((entryId) => {
    const unit = ingested.unitByEntryId.get(entryId);
    if (!unit) throw new Error(`search returned entry ${entryId}, which the harness did not remember`);
    return unit.turnIds;
  });
}

/** The units of the returned entries, best first. */
function unitsOf(ingested: IngestedConversation, entryIds: readonly string[]) {
  return entryIds.flatMap((entryId) => {
    const unit = ingested.unitByEntryId.get(entryId);
    return unit ? [unit] : [];
  });
}

async function timedSearch(
  runtime: Runtime,
  scopeId: string,
  query: string,
  mode: SearchMode,
  limit: number,
) {
  const started = performance.now();
  const result = await runtime.memory.forScope(scopeId).search({ query, mode, limit });
  const milliseconds = performance.now() - started;
  if (result.mode !== mode) throw new Error(`a ${mode} search answered in mode ${result.mode}`);
  return { result, milliseconds, entryIds: result.hits.map((hit) => hit.citation.entryId) };
}

export function identity(
  args: EvalArgs,
  system: RunIdentity['system'],
  mode: string,
  rerank: RunIdentity['rerank'],
  lexicalContext?: string,
  channels?: string,
) {
  return {
    system,
    mode,
    unit: args.unit,
    rerank,
    top_k: args.topK,
    final_k: args.finalK,
    ...(lexicalContext === undefined ? {} : { lexical_context: lexicalContext }),
    ...(channels === undefined ? {} : { channels }),
  } satisfies RunIdentity;
}

/** The search channels a runtime fuses, as runs report them: comma-separated, in fusion order. */
export function channelsOf(runtime: Runtime): string {
  return runtime.capabilities().searchChannels.join(',');
}

/**
 * With `--assembly-budget`: packs a question's final search result through the runtime's assembly
 * step (untimed, after the timed search) and adds it to the run's retention. Without it: nothing.
 */
function assemblyStep(args: EvalArgs) {
  const budget = args.assemblyBudget;
  if (budget === undefined) return undefined;
  const retention = new AssemblyRetention();
  const contract = evalAssemblyContract(budget, args.finalK);
  return {
    async add(
      runtime: Runtime,
      item: IngestedConversation,
      question: EvalQuestion,
      searched: Awaited<ReturnType<typeof timedSearch>>,
    ) {
      const report = await runtime.memory
        .forScope(item.scopeId)
        .assembleContext({ query: question.question, contract }, searched.result);
      retention.add(report, searched.entryIds, question.evidence, (entryId) => {
        return item.unitByEntryId.get(entryId)?.turnIds ?? [];
      });
    },
    /** The run with its `assembly` object added. */
    finish: <Run extends object>(run: Run) => {
      const assembly = retention.build();
      return assembly ? { ...run, assembly } : run;
    },
  };
}

/** The neighbour context a runtime indexes with, as runs report it: the weights, or "none". */
export function lexicalContextOf(runtime: Runtime): string {
  const weights = runtime.config.retrieval.contextWeights;
  return weights.length === 0 ? 'none' : weights.join(',');
}

/**
 * The coarse path of one mode: the final search, the limit-50 curve, the top-k pool and the oracle.
 * The primary store's pools are kept for the rerank runs to compare against.
 */
export async function coarseMode(
  context: EvalContext,
  runtime: Runtime,
  ingested: IngestedConversation[],
  mode: SearchMode,
  primary = true,
) {
  const { args } = context;
  const lexicalContext = lexicalContextOf(runtime);
  const channels = channelsOf(runtime);
  const plain = new RunAccumulator(
    identity(args, 'powercontext', mode, 'none', lexicalContext, channels),
    `final: search with limit ${args.finalK}; coarse: one search with limit ${COARSE_DEPTH}`,
  );
  const oracle = new RunAccumulator(
    identity(args, 'oracle', mode, 'oracle', lexicalContext, channels),
    `final: the best order of the pool of a search with limit ${poolLimitOf(args)} (greedy cover of the evidence); coarse: that pool in fused order`,
  );
  const pools = new Map<EvalQuestion, string[]>();
  const assembly = assemblyStep(args);
  const total = ingested.reduce((sum, item) => sum + item.conversation.questions.length, 0);
  const bar = createProgressBar(`${plain.label} search`, total, context.stream);
  let done = 0;
  bar.update(0);
  for (const item of ingested) {
    for (const [index, question] of item.conversation.questions.entries()) {
      const target = { evidence: question.evidence, relevantUnits: item.relevantUnits[index]! };
      const search = (limit: number) => timedSearch(runtime, item.scopeId, question.question, mode, limit);
      const final = await search(args.finalK);
      await assembly?.add(runtime, item, question, final);
      const coarse = args.finalK === COARSE_DEPTH ? final : await search(COARSE_DEPTH);
      const poolLimit = poolLimitOf(args);
      const pool =
        poolLimit === args.finalK ? final : poolLimit === COARSE_DEPTH ? coarse : await search(poolLimit);
      pools.set(question, pool.entryIds);

      const finalMetrics = questionMetrics(coverageOf(item, final.entryIds), target, args.finalK);
      const coarseMetrics = questionMetrics(coverageOf(item, coarse.entryIds), target, COARSE_DEPTH);
      plain.add(question.category, finalMetrics, coarseMetrics);
      plain.addSearchLatency(final.milliseconds);
      record(context, question, plain.label, finalMetrics, coarseMetrics);
      keepFinalHits(context, plain.label, question, unitsOf(item, final.entryIds));

      const poolCoverage = coverageOf(item, pool.entryIds);
      const best = oracleOrder(poolCoverage, question.evidence).map((position) => poolCoverage[position]!);
      const oracleFinal = questionMetrics(best, target, args.finalK);
      const oracleCoarse = questionMetrics(poolCoverage, target, poolLimit);
      oracle.add(question.category, oracleFinal, oracleCoarse);
      record(context, question, oracle.label, oracleFinal, oracleCoarse);
      bar.update(++done);
    }
  }
  if (primary) context.pools.set(mode, pools);
  const plainRun = plain.build();
  return { plain: assembly ? assembly.finish(plainRun) : plainRun, oracle: oracle.build() };
}

/**
 * One rerank run of one mode over the shared store. The runtime reranks (configured through its
 * environment only); the harness checks that the trace's pool equals the plain top-k pool, then
 * scores coarse from the trace's candidates and final from the returned hits.
 */
async function rerankMode(
  context: EvalContext,
  runtime: Runtime,
  ingested: IngestedConversation[],
  mode: SearchMode,
  policy: 'listwise' | 'decision',
) {
  const { args } = context;
  const poolLimit = poolLimitOf(args);
  const run = new RunAccumulator(
    identity(args, 'powercontext', mode, policy, lexicalContextOf(runtime), channelsOf(runtime)),
    `final: the reranked hits of a search with limit ${args.finalK}; coarse: the trace's candidate pool (${poolLimit})`,
  );
  const pools = context.pools.get(mode)!;
  const assembly = assemblyStep(args);
  const total = ingested.reduce((sum, item) => sum + item.conversation.questions.length, 0);
  const bar = createProgressBar(`powercontext ${mode} + ${policy}`, total, context.stream);
  let done = 0;
  bar.update(0);
  for (const item of ingested) {
    for (const [index, question] of item.conversation.questions.entries()) {
      const target = { evidence: question.evidence, relevantUnits: item.relevantUnits[index]! };
      const searched = await timedSearch(runtime, item.scopeId, question.question, mode, args.finalK);
      const trace = searched.result.trace;
      const candidates = trace ? trace.candidates.map((hit) => hit.citation.entryId) : [];
      const expected = pools.get(question)!;
      if (trace === undefined && expected.length > 0) {
        throw new Error(`no rerank trace for ${question.conversationId} question ${question.index}`);
      }
      if (candidates.length !== expected.length || candidates.some((id, at) => id !== expected[at])) {
        throw new Error(
          `coarse pool differs from the plain search with limit ${poolLimit} (${question.conversationId} question ${question.index}): rerank and no-rerank runs are not comparable`,
        );
      }
      await assembly?.add(runtime, item, question, searched);
      const finalMetrics = questionMetrics(coverageOf(item, searched.entryIds), target, args.finalK);
      const coarseMetrics = questionMetrics(coverageOf(item, candidates), target, poolLimit);
      run.add(question.category, finalMetrics, coarseMetrics);
      run.addSearchLatency(trace ? trace.latencies.coarseMs : searched.milliseconds);
      if (trace) {
        run.addRerankLatency(trace.latencies.rerankMs);
        run.addUsage(trace.usage);
      }
      record(context, question, run.label, finalMetrics, coarseMetrics);
      keepFinalHits(context, run.label, question, unitsOf(item, searched.entryIds));
      bar.update(++done);
    }
  }
  const built = run.build();
  return assembly ? assembly.finish(built) : built;
}

export async function rerankRuns(
  context: EvalContext,
  ingested: IngestedConversation[],
  dataDir: string,
  env: RuntimeEnv,
): Promise<{ runs: RunJson[]; failed: boolean }> {
  const { args } = context;
  if (args.rerank === 'none') return { runs: [], failed: false };
  const policy = args.rerank;
  const rerankEnv = rerankRuntimeEnv(env, dataDir, args, policy);
  const missing = missingRerankModel(rerankEnv, policy);
  const ids = args.modes.map((mode) => identity(args, 'powercontext', mode, policy));
  if (missing) {
    warn(context, `${policy} rerank runs not measured: ${missing}`);
    return { runs: ids.map((id) => unmeasuredRun(id, missing)), failed: false };
  }
  let runtime: Runtime;
  try {
    runtime = await createRuntime({ env: rerankEnv });
  } catch (error) {
    const reason = `the rerank runtime did not start: ${describe(error)}`;
    warn(context, reason);
    return { runs: ids.map((id) => unmeasuredRun(id, reason)), failed: true };
  }
  const runs: RunJson[] = [];
  let failed = false;
  try {
    for (const [index, mode] of args.modes.entries()) {
      try {
        runs.push(await rerankMode(context, runtime, ingested, mode, policy));
      } catch (error) {
        const reason = `failed: ${describe(error)}`;
        warn(context, `${policy} ${mode} run ${reason}`);
        runs.push(unmeasuredRun(ids[index]!, reason));
        failed = true;
      }
    }
  } finally {
    await runtime.close();
  }
  return { runs, failed };
}
