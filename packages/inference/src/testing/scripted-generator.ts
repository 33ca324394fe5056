import { InferenceError } from '../inference-error.js';
import type { InferenceUsage } from '../inference-usage.js';
import type {
  StructuredGenerationRequest,
  StructuredGenerationResult,
  StructuredGenerator,
} from '../structured-generator.port.js';
import { boundedCall } from './scripted-call.js';

export interface ScriptedGeneratorOptions {
  /**
   * The model's answer to a request: the text it would send (JSON, or not), given the abort signal of
   * the call. Throw (or reject) to fail like an unreachable model; never settle to hang. Default: `{}`.
   */
  answer?: (request: StructuredGenerationRequest<unknown>, signal: AbortSignal) => string | Promise<string>;
  /** Token counts the model reports; absent ones stay undefined in the usage (unknown is not 0). */
  tokens?: { input?: number; output?: number };
  /** Deadline of one `generate`. Default 30 000 ms. */
  timeoutMs?: number;
}

export interface ScriptedGenerator extends StructuredGenerator {
  /** Every request, in order. */
  readonly requests: StructuredGenerationRequest<unknown>[];
}

/**
 * An in-memory StructuredGenerator for tests: the script plays the model, and the fake does what an
 * adapter must (parse the JSON text, apply the schema, bound the time, rethrow the caller's abort,
 * report one call and one request per `generate`). It passes the StructuredGenerator conformance suite.
 */
export function createScriptedGenerator(options: ScriptedGeneratorOptions = {}): ScriptedGenerator {
  const requests: StructuredGenerationRequest<unknown>[] = [];
  const answer = options.answer ?? (() => '{}');
  const timeoutMs = options.timeoutMs ?? 30_000;
  return {
    requests,
    async generate<T>(request: StructuredGenerationRequest<T>): Promise<StructuredGenerationResult<T>> {
      request.signal?.throwIfAborted();
      requests.push(request as StructuredGenerationRequest<unknown>);
      const usage: InferenceUsage = { requests: 1, calls: 1 };
      const text = await boundedCall(
        (signal) => answer(request as StructuredGenerationRequest<unknown>, signal),
        {
          signal: request.signal,
          timeoutMs,
          usage,
        },
      );
      if (options.tokens?.input !== undefined) usage.inputTokens = options.tokens.input;
      if (options.tokens?.output !== undefined) usage.outputTokens = options.tokens.output;
      if (usage.inputTokens !== undefined && usage.outputTokens !== undefined) {
        usage.totalTokens = usage.inputTokens + usage.outputTokens;
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch (error) {
        throw new InferenceError('inference_invalid_output', 'The model answered text that is not JSON', {
          cause: error,
          usage,
        });
      }
      const parsed = request.schema.safeParse(json);
      if (!parsed.success) {
        throw new InferenceError(
          'inference_invalid_output',
          `The answer does not match the schema: ${parsed.error.message}`,
          {
            cause: parsed.error,
            usage,
          },
        );
      }
      return { output: parsed.data, usage };
    },
  };
}
