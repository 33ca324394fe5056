export {
  AI_SDK_EMBEDDER_DEFAULTS,
  type AiSdkEmbedderOptions,
  type AiSdkEmbeddingModel,
  createAiSdkEmbedder,
} from './ai-sdk-embedder.js';
export {
  AI_SDK_GENERATOR_DEFAULTS,
  type AiSdkLanguageModel,
  type AiSdkStructuredGeneratorOptions,
  createAiSdkStructuredGenerator,
} from './ai-sdk-structured-generator.js';
export { createEmbeddingModel, type EmbeddingModelOptions } from './embedding-model.js';
export { createLanguageModel, type LanguageModelOptions } from './language-model.js';
export { INFERENCE_BASE_URL_VARIABLE, type ModelConnectionOptions } from './model-connection.js';
export { toInferenceError } from './to-inference-error.js';
