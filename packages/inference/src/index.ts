export {
  InferenceError,
  type InferenceErrorCode,
  type InferenceErrorOptions,
} from './inference-error.js';
export { addUsage, type InferenceUsage, NO_INFERENCE_USAGE } from './inference-usage.js';
export { type ModelProvider, type ModelSpec, parseModelSpec } from './model-spec.js';
export { raceAbort } from './race-abort.js';
export type {
  RelevanceScore,
  RelevanceScorer,
  RelevanceScoringRequest,
  RelevanceScoringResult,
  RelevanceScoringUsage,
} from './relevance-scorer.port.js';
export type {
  StructuredGenerationRequest,
  StructuredGenerationResult,
  StructuredGenerator,
} from './structured-generator.port.js';
