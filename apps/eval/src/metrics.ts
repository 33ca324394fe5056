/**
 * Retrieval metrics over ranked units. A unit covers one or more dialog turn ids (a turn unit covers
 * its own id, an observation the turns it cites). A question's evidence is a deduplicated set of turn
 * ids. Relevance is binary per unit: a unit is relevant when it covers any evidence id.
 */

/** The cut-offs of recall@k, as reported. */
export const RECALL_KS = [1, 5, 10, 25, 30, 50] as const;
export type RecallK = (typeof RECALL_KS)[number];

export interface Metrics {
  recall_at_1?: number;
  recall_at_5?: number;
  recall_at_10?: number;
  recall_at_25?: number;
  recall_at_30?: number;
  recall_at_50?: number;
  hit_at_10?: number;
  mrr?: number;
  ndcg_at_10?: number;
  /** 1 when the search returned nothing at all; averaged, the share of questions with no hits. */
  no_hits?: number;
}

export const METRIC_KEYS = [
  'recall_at_1',
  'recall_at_5',
  'recall_at_10',
  'recall_at_25',
  'recall_at_30',
  'recall_at_50',
  'hit_at_10',
  'mrr',
  'ndcg_at_10',
  'no_hits',
] as const satisfies readonly (keyof Metrics)[];

/** The turn ids each ranked unit covers, best first. */
export type RankedCoverage = readonly (readonly string[])[];

export interface QuestionTarget {
  /** Evidence turn ids; duplicates are ignored. Must not be empty. */
  evidence: readonly string[];
  /** How many units of the whole corpus are relevant (cover any evidence id): the ideal DCG's input. */
  relevantUnits: number;
}

/**
 * The metrics of one ranked list that was retrieved with limit `depth`: recall@k only for k <= depth,
 * hit@10 and nDCG@10 only when depth >= 10 (keys above the depth are absent, never null). MRR is over
 * the whole list (so it is MRR@depth).
 */
export function questionMetrics(ranked: RankedCoverage, target: QuestionTarget, depth: number): Metrics {
  const evidence = new Set(target.evidence);
  if (evidence.size === 0) throw new RangeError('a scored question needs at least one evidence id');
  const list = ranked.slice(0, depth);
  const firstRankOf = new Map<string, number>();
  let firstRelevantRank: number | undefined;
  const relevantAt: boolean[] = [];
  for (const [index, turnIds] of list.entries()) {
    let relevant = false;
    for (const id of turnIds) {
      if (!evidence.has(id)) continue;
      relevant = true;
      if (!firstRankOf.has(id)) firstRankOf.set(id, index + 1);
    }
    relevantAt.push(relevant);
    if (relevant && firstRelevantRank === undefined) firstRelevantRank = index + 1;
  }
  const recallAt = (k: number) => {
    let found = 0;
    for (const rank of firstRankOf.values()) if (rank <= k) found++;
    return found / evidence.size;
  };
  const metrics: Metrics = {};
  for (const k of RECALL_KS) if (k <= depth) metrics[`recall_at_${k}`] = recallAt(k);
  if (depth >= 10) {
    metrics.hit_at_10 = firstRelevantRank !== undefined && firstRelevantRank <= 10 ? 1 : 0;
  }
  metrics.mrr = firstRelevantRank === undefined ? 0 : 1 / firstRelevantRank;
  if (depth >= 10) metrics.ndcg_at_10 = ndcgAt10(relevantAt, target.relevantUnits);
  metrics.no_hits = list.length === 0 ? 1 : 0;
  return metrics;
}

const gain = (rank: number) => 1 / Math.log2(rank + 1);

/** Binary nDCG@10; 0 when no unit of the corpus is relevant (nothing could be found). */
export function ndcgAt10(relevantAt: readonly boolean[], relevantUnits: number): number {
  let dcg = 0;
  for (const [index, relevant] of relevantAt.slice(0, 10).entries()) if (relevant) dcg += gain(index + 1);
  let ideal = 0;
  for (let rank = 1; rank <= Math.min(relevantUnits, 10); rank++) ideal += gain(rank);
  return ideal === 0 ? 0 : Math.min(1, dcg / ideal);
}

/** How many of the units cover any evidence id. */
export function countRelevantUnits(units: RankedCoverage, evidence: readonly string[]): number {
  const wanted = new Set(evidence);
  return units.filter((turnIds) => turnIds.some((id) => wanted.has(id))).length;
}

/**
 * The order a perfect reranker would give the pool: greedily the unit that covers the most evidence
 * not yet covered (ties keep pool order), then the remaining relevant units, then the rest. For turn
 * units (one id each) this is optimal for every recall@k; for observations it is the greedy bound.
 * Returns pool indices.
 */
export function oracleOrder(pool: RankedCoverage, evidence: readonly string[]): number[] {
  const uncovered = new Set(evidence);
  const chosen: number[] = [];
  const taken = new Set<number>();
  while (uncovered.size > 0) {
    let best = -1;
    let bestGain = 0;
    for (const [index, turnIds] of pool.entries()) {
      if (taken.has(index)) continue;
      const newlyCovered = new Set(turnIds.filter((id) => uncovered.has(id))).size;
      if (newlyCovered > bestGain) {
        best = index;
        bestGain = newlyCovered;
      }
    }
    if (best === -1) break;
    chosen.push(best);
    taken.add(best);
    for (const id of pool[best]!) uncovered.delete(id);
  }
  const wanted = new Set(evidence);
  const rest = pool.map((_, index) => index).filter((index) => !taken.has(index));
  const relevant = rest.filter((index) => pool[index]!.some((id) => wanted.has(id)));
  const irrelevant = rest.filter((index) => !pool[index]!.some((id) => wanted.has(id)));
  return [...chosen, ...relevant, ...irrelevant];
}

/** Key-wise mean; a key is kept only when every item has it. Undefined for no items. */
export function meanMetrics(items: readonly Metrics[]): Metrics | undefined {
  if (items.length === 0) return undefined;
  const mean: Metrics = {};
  for (const key of METRIC_KEYS) {
    if (!items.every((item) => item[key] !== undefined)) continue;
    mean[key] = items.reduce((sum, item) => sum + item[key]!, 0) / items.length;
  }
  return mean;
}

/** Rounds every metric to `digits` decimals (the JSON output keeps 4). */
export function roundMetrics(metrics: Metrics, digits = 4): Metrics {
  const factor = 10 ** digits;
  const rounded: Metrics = {};
  for (const key of METRIC_KEYS) {
    const value = metrics[key];
    if (value !== undefined) rounded[key] = Math.round(value * factor) / factor;
  }
  return rounded;
}
