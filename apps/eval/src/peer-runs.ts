import { performance } from 'node:perf_hooks';
import { createProgressBar } from '@powercontext/cli-support';
import { COARSE_DEPTH, type EvalArgs } from './args.js';
import type { EvalConversation, EvalQuestion } from './locomo-data.js';
import { countRelevantUnits, type Metrics, questionMetrics } from './metrics.js';
import { loadPeerFactory } from './optional-modules.js';
import type { EvalUnit, PeerSystem } from './peer-system.js';
import { RunAccumulator, unmeasuredRun } from './run-accumulator.js';
import { type RunJson, SYSTEMS } from './summary-schema.js';

type PeerName = Exclude<(typeof SYSTEMS)[number], 'powercontext' | 'oracle'>;
const PEER_NAMES: readonly string[] = SYSTEMS.filter((name) => name !== 'powercontext' && name !== 'oracle');

export interface PeerOutcome {
  runs: RunJson[];
  records: {
    question: EvalQuestion;
    label: string;
    final: Metrics;
    coarse: Metrics;
    /** The units of the final hits, best first (for the answer stage). */
    finalUnits: EvalUnit[];
  }[];
  warnings: string[];
  failed: boolean;
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * Runs every peer of `./peers/` on the same units and scored questions. Each question is one search
 * with k = max(50, final_k): final = its top final_k, coarse = its top 50, latency = that query.
 */
export async function runPeers(
  args: EvalArgs,
  conversations: readonly EvalConversation[],
  stream: NodeJS.WriteStream,
): Promise<PeerOutcome> {
  const outcome: PeerOutcome = { runs: [], records: [], warnings: [], failed: false };
  const createPeers = await loadPeerFactory();
  if (typeof createPeers === 'string') {
    outcome.warnings.push(`peers not run: ${createPeers}`);
    return outcome;
  }
  const k = Math.max(COARSE_DEPTH, args.finalK);
  const runs = new Map<string, RunAccumulator>();
  const broken = new Map<string, { system: PeerName; mode: string; reason: string }>();
  const total = conversations.reduce((sum, item) => sum + item.questions.length, 0);
  const bar = createProgressBar('peers search', total, stream);
  let done = 0;
  bar.update(0);
  for (const conversation of conversations) {
    let peers: PeerSystem[];
    try {
      peers = await createPeers(conversation.id);
    } catch (error) {
      outcome.warnings.push(`peers not run for ${conversation.id}: ${describe(error)}`);
      outcome.failed = true;
      continue;
    }
    const unitById = new Map<string, EvalUnit>(conversation.units.map((unit) => [unit.unitId, unit]));
    const coverage = conversation.units.map((unit) => unit.turnIds);
    for (const peer of peers) {
      if (!PEER_NAMES.includes(peer.system)) {
        throw new Error(`peer system "${peer.system}" is not one of ${PEER_NAMES.join(', ')}`);
      }
      const key = `${peer.system}/${peer.mode}`;
      if (broken.has(key)) continue;
      let run = runs.get(key);
      if (!run) {
        run = new RunAccumulator(
          {
            system: peer.system as PeerName,
            mode: peer.mode,
            unit: args.unit,
            rerank: 'none',
            top_k: args.topK,
            final_k: args.finalK,
          },
          `one search with k = ${k}: final = its top ${args.finalK}, coarse = its top ${COARSE_DEPTH}`,
        );
        runs.set(key, run);
      }
      try {
        await peer.index(conversation.units);
        for (const question of conversation.questions) {
          const started = performance.now();
          const hits = await peer.search(question.question, k);
          run.addSearchLatency(performance.now() - started);
          const ranked = hits.map((hit) => {
            const unit = unitById.get(hit.unitId);
            if (!unit) throw new Error(`${peer.system} returned unknown unit ${hit.unitId}`);
            return unit.turnIds;
          });
          const target = {
            evidence: question.evidence,
            relevantUnits: countRelevantUnits(coverage, question.evidence),
          };
          const final = questionMetrics(ranked.slice(0, args.finalK), target, args.finalK);
          const coarse = questionMetrics(ranked.slice(0, COARSE_DEPTH), target, COARSE_DEPTH);
          run.add(question.category, final, coarse);
          const finalUnits = hits.slice(0, args.finalK).map((hit) => unitById.get(hit.unitId)!);
          outcome.records.push({ question, label: run.label, final, coarse, finalUnits });
        }
      } catch (error) {
        broken.set(key, { system: peer.system as PeerName, mode: peer.mode, reason: describe(error) });
        outcome.warnings.push(`${key} failed on ${conversation.id}: ${describe(error)}`);
        outcome.failed = true;
      } finally {
        await peer.close?.();
      }
    }
    done += conversation.questions.length;
    bar.update(done);
  }
  for (const [key, run] of runs) {
    const failure = broken.get(key);
    outcome.runs.push(failure ? unmeasuredRun(run.identity, `failed: ${failure.reason}`) : run.build());
  }
  return outcome;
}
