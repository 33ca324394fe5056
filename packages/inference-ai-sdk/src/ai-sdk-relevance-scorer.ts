import type { RerankingModelV3 } from '@ai-sdk/provider';
import {
  type RelevanceScorer,
  type RelevanceScoringRequest,
  type RelevanceScoringResult,
  type RelevanceScoringUsage,
  raceAbort,
} from '@powercontext/inference';
import { type FieldIssue, ValidationError } from '@powercontext/memory-core';
import { rerank } from 'ai';
import { checkCallLimits, startDeadline } from './call-limits.js';
import { countModelCalls } from './count-model-calls.js';

export interface AiSdkRelevanceScorerOptions {
  /** An AI SDK reranking model: `createRerankEndpointModel(...)`, or a provider's `.reranking(id)`. */
  model: RerankingModelV3;
  /** Deadline of one `score` call in seconds: all requests, retries and backoff delays together. Default 30. */
  timeoutSeconds?: number;
  /** Attempts, the first one included (AI SDK `maxRetries` = maxRequests - 1). Default 2. */
  maxRequests?: number;
  /** Reported as the scorer's `modelId`. Default `<provider>:<modelId>` of the model. */
  modelId?: string;
}

export const AI_SDK_SCORER_DEFAULTS = Object.freeze({ timeoutSeconds: 30, maxRequests: 2 });

/**
 * A RelevanceScorer over the AI SDK `rerank()`: one call per `score`, asking for every document
 * (`topN` = their number). One abort signal, the caller's joined with the deadline, bounds the call,
 * retries and backoff included.
 *
 * Usage: `calls` is 1, `requests` counts the model's `doRerank` calls (retries included), `documents`
 * is the documents sent over all of them, and tokens are read from the `usage` object of the final
 * answer's body when the server sends one (`prompt_tokens` as input, `total_tokens` as total), else
 * left undefined.
 *
 * Failures: the caller's own abort rethrows its reason as is; otherwise an `InferenceError` carrying the
 * usage spent: `inference_timeout` past the deadline, `inference_unavailable` when the endpoint cannot
 * be reached or fails (5xx, 429 and 408 retryable, other 4xx not), `inference_invalid_output` when the
 * answer is not the protocol's JSON or names an index outside the documents.
 */
export function createAiSdkRelevanceScorer(options: AiSdkRelevanceScorerOptions): RelevanceScorer {
  const settings = validate(options);
  const modelId = options.modelId ?? `${options.model.provider}:${options.model.modelId}`;

  async function score(request: RelevanceScoringRequest): Promise<RelevanceScoringResult> {
    const callerSignal = request.signal;
    callerSignal?.throwIfAborted();
    const deadline = startDeadline(settings.timeoutSeconds, callerSignal);
    const documents = [...request.documents];
    const usage: RelevanceScoringUsage = { requests: 0, calls: 1, documents: 0 };
    const model = countModelCalls(options.model, () => {
      usage.requests += 1;
      usage.documents += documents.length;
    });
    if (documents.length === 0) return { results: [], usage };
    try {
      const result = await raceAbort(
        rerank({
          model,
          documents,
          query: request.query,
          topN: documents.length,
          maxRetries: settings.maxRequests - 1,
          abortSignal: deadline.signal,
        }),
        deadline.signal,
      );
      return {
        results: result.ranking.map((item) => ({ index: item.originalIndex, score: item.score })),
        usage: { ...usage, ...tokensOf(result.response.body) },
      };
    } catch (error) {
      throw deadline.failure(error, { ...usage });
    }
  }

  return { modelId, score };
}

/** Token counts from an OpenAI-style `usage` object in the answer body; absent ones stay absent. */
function tokensOf(body: unknown): { inputTokens?: number; totalTokens?: number } {
  const usage = (body as { usage?: Record<string, unknown> } | undefined)?.usage;
  if (typeof usage !== 'object' || usage === null) return {};
  const count = (value: unknown) =>
    typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
  const inputTokens = count(usage.prompt_tokens);
  const totalTokens = count(usage.total_tokens);
  return {
    ...(inputTokens === undefined ? {} : { inputTokens }),
    ...(totalTokens === undefined ? {} : { totalTokens }),
  };
}

function validate(options: AiSdkRelevanceScorerOptions) {
  const settings = {
    timeoutSeconds: options.timeoutSeconds ?? AI_SDK_SCORER_DEFAULTS.timeoutSeconds,
    maxRequests: options.maxRequests ?? AI_SDK_SCORER_DEFAULTS.maxRequests,
  };
  const issues: FieldIssue[] = [];
  checkCallLimits(settings, issues);
  if (issues.length > 0) throw new ValidationError(issues);
  return settings;
}
