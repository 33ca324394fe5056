import { z } from 'zod';
import { type CandidateBinding, candidateSetDigest, textDigest } from './digest.js';
import { RerankEvidenceError } from './rerank-evidence-error.js';

/** What every evidence record binds: the query, the ordered candidates, and who ranked them. */
interface EvidenceBinding {
  /** `textDigest` of the exact query the reranker saw. */
  queryDigest: string;
  /** `candidateSetDigest` of `candidates`. */
  candidateSetDigest: string;
  /** Each candidate's entry and content digest, in generator (coarse) order. */
  candidates: readonly CandidateBinding[];
  policyId: string;
  modelId: string;
}

/** A rerank selection: distinct 1-based generator ranks, best first, over a set of `candidateCount`. */
export interface RerankSelection {
  ranks: readonly number[];
  candidateCount: number;
}

/**
 * Rerank evidence: either one score per candidate in generator order (a dedicated rerank model), or a
 * selection of ranks (listwise and decision policies). Exactly one of the two.
 */
export type RerankEvidence = EvidenceBinding &
  ({ scores: readonly number[]; selection?: undefined } | { selection: RerankSelection; scores?: undefined });

/** Who the caller expects the evidence from; a mismatch is `foreign`. */
export interface ExpectedEvidenceSource {
  policyId?: string;
  modelId?: string;
}

/** The order evidence gives the candidates: 0-based indices, best first, and those it left out. */
export interface EvidenceOrder {
  kind: 'scores' | 'selection';
  order: number[];
  notSelected: number[];
  scores?: readonly number[];
}

const digestPattern = /^sha256:[0-9a-f]{64}$/;
const digest = (field: string) =>
  z
    .string({ error: `${field} must be a string` })
    .regex(digestPattern, { error: `${field} must be sha256:<64 hex>` });
const name = (field: string) =>
  z.string({ error: `${field} must be a string` }).min(1, { error: `${field} must not be empty` });

const evidenceSchema = z
  .strictObject({
    queryDigest: digest('queryDigest'),
    candidateSetDigest: digest('candidateSetDigest'),
    candidates: z.array(
      z.strictObject({
        entryId: name('candidates.entryId'),
        contentDigest: digest('candidates.contentDigest'),
      }),
      { error: 'candidates must be an array' },
    ),
    policyId: name('policyId'),
    modelId: name('modelId'),
    scores: z
      .array(
        z
          .number({ error: 'scores must be finite numbers' })
          .finite({ error: 'scores must be finite numbers' }),
        {
          error: 'scores must be an array',
        },
      )
      .optional(),
    selection: z
      .strictObject({
        ranks: z.array(z.int({ error: 'selection.ranks must be integers' }), {
          error: 'selection.ranks must be an array',
        }),
        candidateCount: z.int({ error: 'selection.candidateCount must be an integer' }).min(0, {
          error: 'selection.candidateCount must be at least 0',
        }),
      })
      .optional(),
  })
  .refine((value) => (value.scores === undefined) !== (value.selection === undefined), {
    error: 'exactly one of scores and selection must be given',
  });

/** Builds the evidence record for a ranking of `candidates` (in generator order) under `query`. */
export function bindRerankEvidence(input: {
  query: string;
  candidates: readonly { entryId: string; text: string }[];
  policyId: string;
  modelId: string;
  scores?: readonly number[];
  selection?: RerankSelection;
}): RerankEvidence {
  const candidates = input.candidates.map((candidate) => ({
    entryId: candidate.entryId,
    contentDigest: textDigest(candidate.text),
  }));
  const binding = {
    queryDigest: textDigest(input.query),
    candidateSetDigest: candidateSetDigest(candidates),
    candidates,
    policyId: input.policyId,
    modelId: input.modelId,
  };
  if (input.scores !== undefined && input.selection === undefined) {
    return { ...binding, scores: [...input.scores] };
  }
  if (input.selection !== undefined && input.scores === undefined) {
    return {
      ...binding,
      selection: { ranks: [...input.selection.ranks], candidateCount: input.selection.candidateCount },
    };
  }
  throw new RangeError('bindRerankEvidence needs exactly one of scores and selection');
}

/**
 * Checks that `evidence` was made for exactly this query and these candidates in this order, then
 * returns the order it gives them. Scores order all candidates by score descending, ties by generator
 * rank; a selection orders its ranks as given and leaves the others out. Throws RerankEvidenceError.
 */
export function verifyRerankEvidence(
  query: string,
  candidates: readonly CandidateBinding[],
  evidence: RerankEvidence,
  expected: ExpectedEvidenceSource = {},
): EvidenceOrder {
  const parsed = evidenceSchema.safeParse(evidence);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new RerankEvidenceError('malformed', issue.message);
  }
  const record = parsed.data;
  if (expected.policyId !== undefined && record.policyId !== expected.policyId) {
    throw new RerankEvidenceError(
      'foreign',
      `made by policy ${record.policyId}, expected ${expected.policyId}`,
    );
  }
  if (expected.modelId !== undefined && record.modelId !== expected.modelId) {
    throw new RerankEvidenceError('foreign', `made by model ${record.modelId}, expected ${expected.modelId}`);
  }
  if (record.queryDigest !== textDigest(query)) {
    throw new RerankEvidenceError('foreign', 'made for another query (query digest differs)');
  }
  if (record.candidateSetDigest !== candidateSetDigest(record.candidates)) {
    throw new RerankEvidenceError(
      'malformed',
      'its candidate-set digest does not match its own candidate list',
    );
  }
  const n = candidates.length;
  if (record.candidates.length !== n) {
    throw new RerankEvidenceError(
      'incomplete',
      `binds ${record.candidates.length} candidates, the set has ${n}`,
    );
  }
  if (record.candidateSetDigest !== candidateSetDigest(candidates)) {
    throw new RerankEvidenceError(...classifyMismatch(record.candidates, candidates));
  }
  if (record.scores !== undefined) {
    if (record.scores.length !== n) {
      throw new RerankEvidenceError('incomplete', `${record.scores.length} scores for ${n} candidates`);
    }
    const scores = record.scores;
    const order = scores.map((_, index) => index).sort((a, b) => scores[b]! - scores[a]! || a - b);
    return { kind: 'scores', order, notSelected: [], scores };
  }
  const selection = record.selection!;
  if (selection.candidateCount !== n) {
    throw new RerankEvidenceError(
      'incomplete',
      `a selection over ${selection.candidateCount} candidates, the set has ${n}`,
    );
  }
  const seen = new Set<number>();
  for (const rank of selection.ranks) {
    if (rank < 1 || rank > n) throw new RerankEvidenceError('malformed', `rank ${rank} is outside 1..${n}`);
    if (seen.has(rank)) throw new RerankEvidenceError('malformed', `rank ${rank} is selected twice`);
    seen.add(rank);
  }
  const order = selection.ranks.map((rank) => rank - 1);
  const notSelected = candidates.map((_, index) => index).filter((index) => !seen.has(index + 1));
  return { kind: 'selection', order, notSelected };
}

/** Why two sets of equal size differ: same pairs in another order, same entries with other text, or other entries. */
function classifyMismatch(
  bound: readonly CandidateBinding[],
  offered: readonly CandidateBinding[],
): ['reordered' | 'stale' | 'foreign', string] {
  const pairs = (list: readonly CandidateBinding[]) =>
    list.map((item) => `${item.entryId}\u0000${item.contentDigest}`).sort();
  const entries = (list: readonly CandidateBinding[]) => list.map((item) => item.entryId).sort();
  const same = (a: string[], b: string[]) => a.every((value, index) => value === b[index]);
  if (same(pairs(bound), pairs(offered))) {
    return ['reordered', 'the same candidates in another order than they were ranked in'];
  }
  if (same(entries(bound), entries(offered))) {
    const changed = offered.filter(
      (item) => !bound.some((b) => b.entryId === item.entryId && b.contentDigest === item.contentDigest),
    ).length;
    return ['stale', `${changed} candidate text(s) changed since they were ranked`];
  }
  return ['foreign', 'ranked another candidate set (entries differ)'];
}
