/**
 * Answer-accuracy metrics of the optional answer stage. They score generated answers against the
 * dataset's gold answers and are never mixed with retrieval recall. Normalization follows the SQuAD
 * evaluation script: lower case, punctuation removed, the articles a/an/the removed, whitespace
 * collapsed. (LoCoMo's own script also stems tokens; we do not, and say so wherever these are shown.)
 */

/** SQuAD-style normalization of an answer string. */
export function normalizeAnswer(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKC')
    .replace(/[\p{P}\p{S}]/gu, ' ')
    .replace(/\b(a|an|the)\b/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

export function answerTokens(text: string): string[] {
  const normalized = normalizeAnswer(text);
  return normalized === '' ? [] : normalized.split(' ');
}

/** 1 when the normalized strings are equal, else 0. */
export function exactMatch(prediction: string, gold: string): number {
  return normalizeAnswer(prediction) === normalizeAnswer(gold) ? 1 : 0;
}

function counts(tokens: readonly string[]): Map<string, number> {
  const map = new Map<string, number>();
  for (const token of tokens) map.set(token, (map.get(token) ?? 0) + 1);
  return map;
}

/** Tokens shared by the two bags, each counted at most as often as in both (clipped counts). */
function overlap(prediction: readonly string[], gold: readonly string[]): number {
  const goldCounts = counts(gold);
  let shared = 0;
  for (const [token, count] of counts(prediction)) shared += Math.min(count, goldCounts.get(token) ?? 0);
  return shared;
}

/**
 * Token-level F1 of the bags of normalized tokens. Two empty answers score 1; one empty answer
 * scores 0.
 */
export function tokenF1(prediction: string, gold: string): number {
  const predicted = answerTokens(prediction);
  const expected = answerTokens(gold);
  if (predicted.length === 0 || expected.length === 0) return predicted.length === expected.length ? 1 : 0;
  const shared = overlap(predicted, expected);
  if (shared === 0) return 0;
  const precision = shared / predicted.length;
  const recall = shared / expected.length;
  return (2 * precision * recall) / (precision + recall);
}

/**
 * BLEU-1 of one candidate against one reference: clipped unigram precision times the brevity
 * penalty exp(1 - r/c) when the candidate is shorter than the reference (c <= r). An empty candidate
 * scores 0.
 */
export function bleu1(prediction: string, gold: string): number {
  const candidate = answerTokens(prediction);
  const reference = answerTokens(gold);
  if (candidate.length === 0 || reference.length === 0) return 0;
  const precision = overlap(candidate, reference) / candidate.length;
  const brevity = candidate.length > reference.length ? 1 : Math.exp(1 - reference.length / candidate.length);
  return precision * brevity;
}
