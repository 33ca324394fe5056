import type { z } from 'zod';
import type { InferenceUsage } from './inference-usage.js';

export interface StructuredGenerationRequest<T> {
  /** Instructions for the model: the role and the rules of the task. */
  system: string;
  /** The task input. */
  prompt: string;
  /** Shape of the answer. Output that does not parse is an `inference_invalid_output` failure. */
  schema: z.ZodType<T>;
  /** Cancels the generation; the adapter rethrows the caller's abort unwrapped. */
  signal?: AbortSignal;
}

export interface StructuredGenerationResult<T> {
  output: T;
  usage: InferenceUsage;
}

/**
 * Asks a language model for one answer of a given schema. Adapters bound the time themselves and
 * report failures as `InferenceError` (`inference_timeout`, `inference_unavailable`,
 * `inference_invalid_output`).
 */
export interface StructuredGenerator {
  generate<T>(request: StructuredGenerationRequest<T>): Promise<StructuredGenerationResult<T>>;
}
