import { describe, expect, it } from 'vitest';
import { candidatesOf } from './assembly-fixture.test.helper.js';
import { textDigest } from './digest.js';
import { bindRerankEvidence, type RerankEvidence, verifyRerankEvidence } from './rerank-evidence.js';
import { RerankEvidenceError, type RerankEvidenceMismatch } from './rerank-evidence-error.js';

const QUERY = 'who built the raised beds?';
const CANDIDATES = candidatesOf([
  'Tomás: I will build twelve raised beds from reclaimed larch.',
  'Priya: The topsoil delivery cost 320 euros in April.',
  'Tomás: Slugs ate the lettuce seedlings in bed four.',
]);
const bindings = (list = CANDIDATES) =>
  list.map((candidate) => ({ entryId: candidate.entryId, contentDigest: textDigest(candidate.text) }));
const scored = (scores: number[], list = CANDIDATES, query = QUERY) =>
  bindRerankEvidence({ query, candidates: list, policyId: 'p.v1', modelId: 'm', scores });

function rejection(run: () => unknown): RerankEvidenceMismatch {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(RerankEvidenceError);
    expect((error as RerankEvidenceError).code).toBe('rerank_evidence_mismatch');
    return (error as RerankEvidenceError).mismatch;
  }
  throw new Error('evidence was accepted');
}

describe('rerank evidence binding', () => {
  it('orders scores descending, ties by generator rank, and keeps every candidate', () => {
    const order = verifyRerankEvidence(QUERY, bindings(), scored([0.2, 0.9, 0.2]));
    expect(order).toMatchObject({ kind: 'scores', order: [1, 0, 2], notSelected: [] });
  });

  it('orders a selection as given and reports the ranks it left out', () => {
    const evidence = bindRerankEvidence({
      query: QUERY,
      candidates: CANDIDATES,
      policyId: 'p.v1',
      modelId: 'm',
      selection: { ranks: [3, 1], candidateCount: 3 },
    });
    expect(verifyRerankEvidence(QUERY, bindings(), evidence)).toEqual({
      kind: 'selection',
      order: [2, 0],
      notSelected: [1],
    });
  });

  it('rejects scores made for another query as foreign', () => {
    expect(
      rejection(() =>
        verifyRerankEvidence(QUERY, bindings(), scored([1, 2, 3], CANDIDATES, 'what did the soil cost?')),
      ),
    ).toBe('foreign');
  });

  it('rejects evidence from another policy or model than expected as foreign', () => {
    const evidence = scored([1, 2, 3]);
    expect(rejection(() => verifyRerankEvidence(QUERY, bindings(), evidence, { policyId: 'other.v1' }))).toBe(
      'foreign',
    );
    expect(
      rejection(() => verifyRerankEvidence(QUERY, bindings(), evidence, { modelId: 'other-model' })),
    ).toBe('foreign');
    expect(verifyRerankEvidence(QUERY, bindings(), evidence, { policyId: 'p.v1', modelId: 'm' }).kind).toBe(
      'scores',
    );
  });

  it('rejects scores of a reordered candidate set', () => {
    const reordered = [CANDIDATES[1]!, CANDIDATES[0]!, CANDIDATES[2]!];
    expect(rejection(() => verifyRerankEvidence(QUERY, bindings(reordered), scored([1, 2, 3])))).toBe(
      'reordered',
    );
  });

  it('rejects scores of candidates whose text changed since as stale', () => {
    const revised = CANDIDATES.map((candidate, index) =>
      index === 1
        ? { ...candidate, text: 'Priya: The topsoil delivery cost 340 euros in April.' }
        : candidate,
    );
    expect(rejection(() => verifyRerankEvidence(QUERY, bindings(revised), scored([1, 2, 3])))).toBe('stale');
  });

  it('rejects scores of other entries as foreign', () => {
    const other = candidatesOf(['x one', 'y two', 'z three']).map((candidate) => ({
      ...candidate,
      entryId: `other-${candidate.entryId}`,
    }));
    expect(rejection(() => verifyRerankEvidence(QUERY, bindings(other), scored([1, 2, 3])))).toBe('foreign');
  });

  it('rejects evidence over fewer or more candidates, or a score vector of another length, as incomplete', () => {
    const twoOfThree = scored([1, 2], CANDIDATES.slice(0, 2));
    expect(rejection(() => verifyRerankEvidence(QUERY, bindings(), twoOfThree))).toBe('incomplete');
    expect(rejection(() => verifyRerankEvidence(QUERY, bindings().slice(0, 2), scored([1, 2, 3])))).toBe(
      'incomplete',
    );
    const short = { ...scored([1, 2, 3]), scores: [1, 2] } as RerankEvidence;
    expect(rejection(() => verifyRerankEvidence(QUERY, bindings(), short))).toBe('incomplete');
    const selection: RerankEvidence = {
      ...scored([1, 2, 3]),
      scores: undefined,
      selection: { ranks: [1], candidateCount: 4 },
    };
    expect(rejection(() => verifyRerankEvidence(QUERY, bindings(), selection))).toBe('incomplete');
  });

  it.each<[string, (evidence: RerankEvidence) => unknown]>([
    ['a non-finite score', (evidence) => ({ ...evidence, scores: [1, Number.NaN, 3] })],
    [
      'a rank out of range',
      (evidence) => ({ ...evidence, scores: undefined, selection: { ranks: [4], candidateCount: 3 } }),
    ],
    [
      'a repeated rank',
      (evidence) => ({ ...evidence, scores: undefined, selection: { ranks: [2, 2], candidateCount: 3 } }),
    ],
    [
      'both scores and a selection',
      (evidence) => ({ ...evidence, selection: { ranks: [1], candidateCount: 3 } }),
    ],
    [
      'a candidate-set digest that does not match its own list',
      (evidence) => ({ ...evidence, candidateSetDigest: evidence.queryDigest }),
    ],
    ['a digest that is not sha256', (evidence) => ({ ...evidence, queryDigest: 'md5:abc' })],
  ])('rejects %s as malformed', (_name, change) => {
    const evidence = change(scored([1, 2, 3])) as RerankEvidence;
    expect(rejection(() => verifyRerankEvidence(QUERY, bindings(), evidence))).toBe('malformed');
  });
});
