import { InferenceError } from '../inference-error.js';
import type {
  RelevanceScore,
  RelevanceScorer,
  RelevanceScoringRequest,
  RelevanceScoringResult,
  RelevanceScoringUsage,
} from '../relevance-scorer.port.js';
import { boundedCall } from './scripted-call.js';

export interface ScriptedRelevanceScorerOptions {
  /** `<provider>:<model>`. Default `scripted:relevance`. */
  modelId?: string;
  /**
   * The model's answer: scores as `{ index, score }` in the model's order, given the abort signal.
   * Throw (or reject) to fail like an unreachable endpoint; never settle to hang. Default: each
   * document scored by the number of query words it contains.
   */
  answer?: (
    request: RelevanceScoringRequest,
    signal: AbortSignal,
  ) => RelevanceScore[] | Promise<RelevanceScore[]>;
  /** Input tokens the endpoint reports; absent means unknown (undefined, not 0). */
  inputTokens?: number;
  /** Deadline of one `score`. Default 30 000 ms. */
  timeoutMs?: number;
}

export interface ScriptedRelevanceScorer extends RelevanceScorer {
  readonly requests: RelevanceScoringRequest[];
}

const words = (text: string) => new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);

/**
 * An in-memory RelevanceScorer for tests: the script plays the endpoint; the fake checks the answer's
 * shape (integer indices in range, finite scores), bounds the time, rethrows the caller's abort and
 * reports usage like an adapter. It passes the RelevanceScorer conformance suite.
 */
export function createScriptedRelevanceScorer(
  options: ScriptedRelevanceScorerOptions = {},
): ScriptedRelevanceScorer {
  const requests: RelevanceScoringRequest[] = [];
  const timeoutMs = options.timeoutMs ?? 30_000;
  const answer =
    options.answer ??
    ((request: RelevanceScoringRequest) => {
      const query = words(request.query);
      return request.documents.map((document, index) => ({
        index,
        score: [...words(document)].filter((word) => query.has(word)).length,
      }));
    });
  return {
    modelId: options.modelId ?? 'scripted:relevance',
    requests,
    async score(request: RelevanceScoringRequest): Promise<RelevanceScoringResult> {
      request.signal?.throwIfAborted();
      if (request.documents.length === 0)
        return { results: [], usage: { requests: 0, calls: 1, documents: 0 } };
      requests.push(request);
      const usage: RelevanceScoringUsage = { requests: 1, calls: 1, documents: request.documents.length };
      const results = await boundedCall((signal) => answer(request, signal), {
        signal: request.signal,
        timeoutMs,
        usage,
      });
      if (options.inputTokens !== undefined) usage.inputTokens = options.inputTokens;
      const bad = results.find(
        (result) =>
          !Number.isInteger(result.index) ||
          result.index < 0 ||
          result.index >= request.documents.length ||
          !Number.isFinite(result.score),
      );
      if (bad) {
        throw new InferenceError(
          'inference_invalid_output',
          `The endpoint answered an invalid score ${JSON.stringify(bad)}`,
          {
            usage,
          },
        );
      }
      return { results: results.map(({ index, score }) => ({ index, score })), usage };
    },
  };
}
