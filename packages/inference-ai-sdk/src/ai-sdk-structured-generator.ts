import {
  addUsage,
  InferenceError,
  type InferenceUsage,
  raceAbort,
  type StructuredGenerationRequest,
  type StructuredGenerationResult,
  type StructuredGenerator,
} from '@powercontext/inference';
import { type FieldIssue, ValidationError } from '@powercontext/memory-core';
import {
  generateText,
  type LanguageModel,
  type LanguageModelUsage,
  NoObjectGeneratedError,
  Output,
} from 'ai';
import type { z } from 'zod';
import { checkCallLimits, startDeadline } from './call-limits.js';
import { countModelCalls } from './count-model-calls.js';

/** An AI SDK language model object (a provider's `.chat(id)`, or `createLanguageModel`). */
export type AiSdkLanguageModel = Exclude<LanguageModel, string>;

export interface AiSdkStructuredGeneratorOptions {
  model: AiSdkLanguageModel;
  /** Deadline of one `generate` call in seconds: all requests, retries and backoff delays together. Default 30. */
  timeoutSeconds?: number;
  /** Attempts, the first one included (AI SDK `maxRetries` = maxRequests - 1). Default 2. */
  maxRequests?: number;
}

export const AI_SDK_GENERATOR_DEFAULTS = Object.freeze({
  timeoutSeconds: 30,
  maxRequests: 2,
});

/**
 * A StructuredGenerator over an AI SDK language model: one `generateText` with `Output.object`
 * at temperature 0 per `generate`. One abort signal, the caller's signal joined with the deadline,
 * bounds the whole call, retries and backoff included.
 *
 * Usage: `calls` is 1, `requests` counts the model's `doGenerate` calls (one HTTP request each,
 * retries included), tokens are those the provider reported (left undefined when it reported none).
 *
 * Failures: the caller's own abort rethrows its reason as is; otherwise an `InferenceError` with the
 * usage spent so far: `inference_timeout` past the deadline, `inference_unavailable` when the
 * provider cannot be reached or refuses (5xx, 429 and 408 retryable, other 4xx not),
 * `inference_invalid_output` when the answer is not JSON or does not match the schema.
 */
export function createAiSdkStructuredGenerator(
  options: AiSdkStructuredGeneratorOptions,
): StructuredGenerator {
  const settings = validate(options);

  async function generate<T>(
    request: StructuredGenerationRequest<T>,
  ): Promise<StructuredGenerationResult<T>> {
    const callerSignal = request.signal;
    callerSignal?.throwIfAborted();

    const deadline = startDeadline(settings.timeoutSeconds, callerSignal);
    let usage: InferenceUsage = { requests: 0, calls: 1 };
    const model = countModelCalls(options.model, () => {
      usage.requests += 1;
    });

    let text: string;
    try {
      const result = await raceAbort(
        generateText({
          model,
          system: request.system,
          prompt: request.prompt,
          output: Output.object({ schema: request.schema }),
          temperature: 0,
          maxRetries: settings.maxRequests - 1,
          abortSignal: deadline.signal,
        }),
        deadline.signal,
      );
      usage = withTokens(usage, result.usage);
      // Reading `output` throws NoOutputGeneratedError when the model produced no final answer.
      void result.output;
      text = result.text;
    } catch (error) {
      if (NoObjectGeneratedError.isInstance(error)) usage = withTokens(usage, error.usage);
      throw deadline.failure(error, { ...usage });
    }

    // Belt and braces: the AI SDK has validated the answer already, but a schema the provider or the
    // SDK ignored must still end as invalid output. The raw text is checked rather than the SDK's
    // output, which is the schema's output already (parsing it again would run transforms twice).
    return { output: checkedAnswer(text, request.schema, usage), usage };
  }

  return { generate };
}

/**
 * The usage with the tokens the provider reported added; unreported counts stay undefined. The AI SDK
 * derives `totalTokens` as input + output and takes a missing side as nothing, so it is kept only
 * when both sides were reported (otherwise it would pass a partial count off as the total).
 */
function withTokens(usage: InferenceUsage, tokens: LanguageModelUsage | undefined): InferenceUsage {
  const inputTokens = known(tokens?.inputTokens);
  const outputTokens = known(tokens?.outputTokens);
  const bothReported = inputTokens !== undefined && outputTokens !== undefined;
  return addUsage(usage, {
    requests: 0,
    calls: 0,
    inputTokens,
    outputTokens,
    totalTokens: bothReported ? known(tokens?.totalTokens) : undefined,
  });
}

function known(count: number | undefined): number | undefined {
  return typeof count === 'number' && Number.isFinite(count) ? count : undefined;
}

/** The answer `text` parsed as JSON and by `schema`; `inference_invalid_output` when either fails. */
function checkedAnswer<T>(text: string, schema: z.ZodType<T>, usage: InferenceUsage): T {
  const invalid = (problem: string, cause: unknown) =>
    new InferenceError('inference_invalid_output', `The model's answer ${problem}`, {
      cause,
      usage: { ...usage },
    });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalid('is not JSON', error);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalid(`does not match the schema: ${parsed.error.message}`, parsed.error);
  return parsed.data;
}

function validate(options: AiSdkStructuredGeneratorOptions) {
  const settings = {
    timeoutSeconds: options.timeoutSeconds ?? AI_SDK_GENERATOR_DEFAULTS.timeoutSeconds,
    maxRequests: options.maxRequests ?? AI_SDK_GENERATOR_DEFAULTS.maxRequests,
  };
  const issues: FieldIssue[] = [];
  checkCallLimits(settings, issues);
  if (issues.length > 0) throw new ValidationError(issues);
  return settings;
}
