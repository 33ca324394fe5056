/**
 * Conformance suite of the `RelevanceScorer` port (RFC 0009 "The port: RelevanceScorer"). Every
 * scoring adapter runs it unchanged; see CONTRIBUTING.md.
 */
import type { RelevanceScorer, RelevanceScoringResult } from '../relevance-scorer.port.js';
import {
  type ConformanceCheck,
  type ConformanceSuite,
  conform,
  registerConformanceSuite,
  runConformanceSuite,
  settleWithin,
  shown,
} from './conformance.js';
import { conformAbort, conformInferenceError, conformTokens, rejectionOf } from './expect-failure.js';

/**
 * How the scoring model behind the scorer must behave.
 * - `score`: it scores document i with `scoreOf(document, i)` and answers every document, best first
 *   (as rerank servers do), reporting `inputTokens` when given and no token counts otherwise.
 * - `invalid`: it answers with a score for an index outside the documents.
 * - `fail`: it cannot be reached or answers with a server error (HTTP 500) every time.
 * - `hang`: it never answers.
 */
export type ScorerBackend =
  | { kind: 'score'; scoreOf: (document: string, index: number) => number; inputTokens?: number }
  | { kind: 'invalid' }
  | { kind: 'fail' }
  | { kind: 'hang' };

export interface RelevanceScorerConformanceOptions {
  create(backend: ScorerBackend, limits: { timeoutMs: number }): RelevanceScorer | Promise<RelevanceScorer>;
  cleanup?(): Promise<void> | void;
  /** How long a call may take before a check reports it as hanging. Default 5000 ms. */
  patienceMs?: number;
}

const DOCUMENTS = ['The council approved the garden.', 'Slugs ate the lettuce.', 'Topsoil cost 320 euros.'];
const SCORES = [0.25, 0.875, 0.5];
const scoring = { kind: 'score', scoreOf: (_document: string, index: number) => SCORES[index]! } as const;

export function relevanceScorerConformanceSuite(
  options: RelevanceScorerConformanceOptions,
): ConformanceSuite {
  const patienceMs = options.patienceMs ?? 5_000;
  const roomy = { timeoutMs: patienceMs * 2 };
  const request = { query: 'what did the council approve', documents: DOCUMENTS };

  async function scoreOk(scorer: RelevanceScorer, documents = DOCUMENTS): Promise<RelevanceScoringResult> {
    const settled = await settleWithin(
      Promise.resolve().then(() => scorer.score({ ...request, documents })),
      patienceMs,
    );
    conform(settled.status !== 'timedOut', `score: no answer within ${patienceMs} ms`);
    conform(
      settled.status === 'fulfilled',
      `score failed: ${settled.status === 'rejected' ? String(settled.reason) : ''}`,
    );
    return settled.value;
  }

  const checks: ConformanceCheck[] = [
    {
      title: 'names the model as <provider>:<model>',
      rule: 'RFC 0009 "The port": modelId',
      async run() {
        const { modelId } = await options.create(scoring, roomy);
        conform(
          typeof modelId === 'string' && /^[^\s:]+:\S+$/.test(modelId),
          `modelId must look like "<provider>:<model>", got ${shown(modelId)}`,
        );
      },
    },
    {
      title: "returns each document's score under its own input index",
      rule: 'RFC 0009 "The port": results refer to documents by 0-based index',
      async run() {
        const { results } = await scoreOk(await options.create(scoring, roomy));
        const byIndex = new Map(results.map((result) => [result.index, result.score]));
        for (const [index, expected] of SCORES.entries()) {
          conform(
            byIndex.get(index) === expected,
            `document ${index} was scored ${expected} by the model, the result says ${shown(byIndex.get(index))} (results: ${shown(results)})`,
          );
        }
        conform(
          results.every((result) => Number.isInteger(result.index) && Number.isFinite(result.score)),
          `every result must be an integer index with a finite score, got ${shown(results)}`,
        );
      },
    },
    {
      title: 'reports one call, the requests and the documents sent, and only reported tokens',
      rule: 'RFC 0009 "The port": usage is one call\'s, tokens only when reported',
      async run() {
        const withTokens = await scoreOk(await options.create({ ...scoring, inputTokens: 15 }, roomy));
        const { usage } = withTokens;
        conform(
          usage.calls === 1 && usage.requests >= 1 && usage.documents === DOCUMENTS.length * usage.requests,
          `one score of ${DOCUMENTS.length} documents in ${usage.requests} request(s) must report calls 1 and documents ${DOCUMENTS.length * usage.requests}, got ${shown(usage)}`,
        );
        conformTokens({ ...usage }, 'a scoring answer with token counts');
        conform(
          usage.inputTokens === 15,
          `the endpoint reported 15 input tokens, the usage says ${shown(usage)}`,
        );
        const without = await scoreOk(await options.create(scoring, roomy));
        conform(
          without.usage.inputTokens === undefined,
          `the endpoint reported no tokens, so inputTokens must stay undefined (unknown is not 0), got ${shown(without.usage)}`,
        );
      },
    },
    {
      title: 'refuses an answer naming an index outside the documents as inference_invalid_output',
      rule: 'RFC 0009 "The port": adapters check the shape of an answer',
      async run() {
        const scorer = await options.create({ kind: 'invalid' }, roomy);
        const error = await rejectionOf(() => scorer.score(request), patienceMs, 'an out-of-range index');
        conformInferenceError(error, 'inference_invalid_output', 'an out-of-range index');
      },
    },
    {
      title: 'fails an unreachable endpoint as inference_unavailable, with the requests sent',
      rule: 'RFC 0009 "The port": failures are InferenceErrors',
      async run() {
        const scorer = await options.create({ kind: 'fail' }, roomy);
        const error = await rejectionOf(() => scorer.score(request), patienceMs, 'a failing endpoint');
        const failure = conformInferenceError(error, 'inference_unavailable', 'a failing endpoint');
        conform(
          failure.usage!.requests >= 1,
          `the requests sent must be counted, got ${shown(failure.usage)}`,
        );
      },
    },
    {
      title: 'bounds the call by its own deadline: inference_timeout',
      rule: 'RFC 0009 "The port": adapters bound the time themselves',
      async run() {
        const scorer = await options.create({ kind: 'hang' }, { timeoutMs: 200 });
        const error = await rejectionOf(
          () => scorer.score(request),
          patienceMs,
          'an endpoint that never answers',
        );
        conformInferenceError(error, 'inference_timeout', 'an endpoint that never answers (timeout 200 ms)');
      },
    },
    {
      title: "honours the caller's abort, rethrowing the caller's reason",
      rule: 'RFC 0009 "The port": the caller\'s abort reason rethrown unwrapped',
      async run() {
        const scorer = await options.create({ kind: 'hang' }, roomy);
        await conformAbort((signal) => scorer.score({ ...request, signal }), patienceMs);
      },
    },
  ];
  return { checks, ...(options.cleanup ? { cleanup: () => options.cleanup?.() } : {}) };
}

export function describeRelevanceScorerConformance(
  name: string,
  options: RelevanceScorerConformanceOptions,
): void {
  registerConformanceSuite(`RelevanceScorer conformance: ${name}`, relevanceScorerConformanceSuite(options));
}

export function runRelevanceScorerConformance(options: RelevanceScorerConformanceOptions) {
  return runConformanceSuite(relevanceScorerConformanceSuite(options));
}
