export {
  AI_SDK_EMBEDDER_DEFAULTS,
  type AiSdkEmbedderOptions,
  type AiSdkEmbeddingModel,
  createAiSdkEmbedder,
} from './ai-sdk-embedder.js';
export {
  AI_SDK_SCORER_DEFAULTS,
  type AiSdkRelevanceScorerOptions,
  createAiSdkRelevanceScorer,
} from './ai-sdk-relevance-scorer.js';
export {
  AI_SDK_GENERATOR_DEFAULTS,
  type AiSdkLanguageModel,
  type AiSdkStructuredGeneratorOptions,
  createAiSdkStructuredGenerator,
} from './ai-sdk-structured-generator.js';
export { createEmbeddingModel, type EmbeddingModelOptions } from './embedding-model.js';
export { createLanguageModel, type LanguageModelOptions } from './language-model.js';
export { INFERENCE_BASE_URL_VARIABLE, type ModelConnectionOptions } from './model-connection.js';
export {
  createRerankEndpointModel,
  RERANK_ENDPOINT_PROVIDER,
  type RerankEndpointModelOptions,
} from './rerank-endpoint-model.js';
export { toInferenceError } from './to-inference-error.js';
