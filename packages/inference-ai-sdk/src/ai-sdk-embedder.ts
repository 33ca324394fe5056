import { InferenceError, type InferenceUsage, raceAbort } from '@powercontext/inference';
import {
  assertEmbeddableTexts,
  type Embedder,
  EmbeddingFailedError,
  type EmbeddingProfile,
  type EmbedOptions,
  type FieldIssue,
  ValidationError,
} from '@powercontext/memory-core';
import { type EmbeddingModel, embedMany } from 'ai';
import { checkCallLimits, startDeadline } from './call-limits.js';
import { countModelCalls } from './count-model-calls.js';

/** An AI SDK embedding model object (a provider's `.embedding(id)`, or `createEmbeddingModel`). */
export type AiSdkEmbeddingModel = Exclude<EmbeddingModel, string>;

export interface AiSdkEmbedderOptions {
  model: AiSdkEmbeddingModel;
  profile: {
    /** Versioned id of the vector space, e.g. `openai:text-embedding-3-small@1536`. */
    id: string;
    /** Length every returned vector must have. */
    dimension: number;
    /** Vector admission threshold. Default 0.3, which suits neural embeddings. */
    minCosine?: number;
  };
  /** Deadline of one `embed` call in seconds: all batches, retries and backoff delays together. Default 30. */
  timeoutSeconds?: number;
  /** Attempts per batch, the first one included (AI SDK `maxRetries` = maxRequests - 1). Default 2. */
  maxRequests?: number;
  /** Texts per provider request. Default 96. */
  batchSize?: number;
}

export const AI_SDK_EMBEDDER_DEFAULTS = Object.freeze({
  minCosine: 0.3,
  timeoutSeconds: 30,
  maxRequests: 2,
  batchSize: 96,
});

/**
 * A memory-core Embedder over an AI SDK embedding model. Vectors are checked against the profile's
 * dimension and scaled to unit length (the profile says `l2`). Failures surface as
 * `EmbeddingFailedError` whose `cause` is an `InferenceError` (`inference_timeout`,
 * `inference_unavailable` or `inference_invalid_output`, with the requests sent as `usage`).
 * When the caller's own signal aborts, its reason is rethrown as is. Text with NUL (U+0000) or a lone
 * surrogate is refused with a ValidationError before any request (`assertEmbeddableTexts`).
 */
export function createAiSdkEmbedder(options: AiSdkEmbedderOptions): Embedder {
  const settings = validate(options);
  const profile: EmbeddingProfile = {
    id: options.profile.id,
    dimension: options.profile.dimension,
    normalization: 'l2',
    minCosine: settings.minCosine,
  };

  async function embed(texts: readonly string[], embedOptions: EmbedOptions = {}): Promise<number[][]> {
    assertEmbeddableTexts(texts);
    const callerSignal = embedOptions.signal;
    callerSignal?.throwIfAborted();
    if (texts.length === 0) return [];

    const deadline = startDeadline(settings.timeoutSeconds, callerSignal);
    const { signal } = deadline;
    const usage: InferenceUsage = { requests: 0, calls: 0 };
    const model = countModelCalls(options.model, () => {
      usage.requests += 1;
    });

    const vectors: number[][] = [];
    try {
      for (let start = 0; start < texts.length; start += settings.batchSize) {
        const batch = texts.slice(start, start + settings.batchSize);
        usage.calls += 1;
        const result = await raceAbort(
          embedMany({ model, values: batch, maxRetries: settings.maxRequests - 1, abortSignal: signal }),
          signal,
        );
        if (Number.isFinite(result.usage.tokens)) {
          usage.inputTokens = (usage.inputTokens ?? 0) + result.usage.tokens;
        }
        vectors.push(...checkedVectors(result.embeddings, batch.length, start, profile, usage));
      }
    } catch (error) {
      const failure = deadline.failure(error, { ...usage });
      throw new EmbeddingFailedError(`Embedding for profile ${profile.id} failed: ${failure.message}`, {
        cause: failure,
        retryable: failure.retryable,
      });
    }
    return vectors;
  }

  return { profile, embed };
}

function checkedVectors(
  embeddings: readonly (readonly number[])[],
  expectedCount: number,
  offset: number,
  profile: EmbeddingProfile,
  usage: InferenceUsage,
): number[][] {
  const invalid = (message: string) =>
    new InferenceError('inference_invalid_output', message, { usage: { ...usage } });
  if (embeddings.length !== expectedCount) {
    throw invalid(`The model returned ${embeddings.length} vectors for ${expectedCount} texts`);
  }
  return embeddings.map((vector, index) => {
    if (vector.length !== profile.dimension) {
      throw invalid(
        `The model returned a vector of dimension ${vector.length} for text ${offset + index}, ` +
          `but profile ${profile.id} has dimension ${profile.dimension}`,
      );
    }
    if (!vector.every(Number.isFinite)) {
      throw invalid(`The model returned a vector with a non-finite value for text ${offset + index}`);
    }
    return unitLength(vector);
  });
}

function unitLength(vector: readonly number[]): number[] {
  let squares = 0;
  for (const value of vector) squares += value * value;
  const length = Math.sqrt(squares);
  return length === 0 ? [...vector] : vector.map((value) => value / length);
}

function validate(options: AiSdkEmbedderOptions) {
  const settings = {
    minCosine: options.profile.minCosine ?? AI_SDK_EMBEDDER_DEFAULTS.minCosine,
    timeoutSeconds: options.timeoutSeconds ?? AI_SDK_EMBEDDER_DEFAULTS.timeoutSeconds,
    maxRequests: options.maxRequests ?? AI_SDK_EMBEDDER_DEFAULTS.maxRequests,
    batchSize: options.batchSize ?? AI_SDK_EMBEDDER_DEFAULTS.batchSize,
  };
  const issues: FieldIssue[] = [];
  const { id, dimension } = options.profile;
  if (typeof id !== 'string' || id.trim() === '')
    issues.push({ field: 'profile.id', rule: 'must be a non-empty string' });
  if (!Number.isInteger(dimension) || dimension < 1) {
    issues.push({ field: 'profile.dimension', rule: 'must be a positive integer' });
  }
  if (!Number.isFinite(settings.minCosine) || settings.minCosine < -1 || settings.minCosine > 1) {
    issues.push({ field: 'profile.minCosine', rule: 'must be a number from -1 to 1' });
  }
  checkCallLimits(settings, issues);
  if (!Number.isInteger(settings.batchSize) || settings.batchSize < 1) {
    issues.push({ field: 'batchSize', rule: 'must be an integer of at least 1' });
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return settings;
}
