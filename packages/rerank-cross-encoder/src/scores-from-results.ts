import { InferenceError, type RelevanceScore, type RelevanceScoringUsage } from '@powercontext/inference';

/**
 * One score per candidate, in coarse order, from a rerank answer. The answer must score every index in
 * 0..n-1 exactly once with a finite number; anything else (a missing, repeated or out-of-range index, a
 * score that is not a number) is `inference_invalid_output`, carrying what the call cost.
 */
export function scoresFromResults(
  results: readonly RelevanceScore[],
  candidateCount: number,
  usage: RelevanceScoringUsage,
): number[] {
  const invalid = (problem: string) =>
    new InferenceError('inference_invalid_output', `The rerank answer ${problem}`, { usage: { ...usage } });
  const scores = new Array<number | undefined>(candidateCount).fill(undefined);
  for (const { index, score } of results) {
    if (!Number.isInteger(index) || index < 0 || index >= candidateCount) {
      throw invalid(`scores index ${index}, outside 0..${candidateCount - 1}`);
    }
    if (typeof score !== 'number' || !Number.isFinite(score)) {
      throw invalid(`gives index ${index} a score that is not a finite number`);
    }
    if (scores[index] !== undefined) throw invalid(`scores index ${index} twice`);
    scores[index] = score;
  }
  const missing = scores.flatMap((score, index) => (score === undefined ? [index] : []));
  if (missing.length > 0) {
    throw invalid(
      `scores ${candidateCount - missing.length} of ${candidateCount} candidates (missing ${missing.join(', ')})`,
    );
  }
  return scores as number[];
}
