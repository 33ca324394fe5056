export {
  AI_SDK_EMBEDDER_DEFAULTS,
  type AiSdkEmbedderOptions,
  type AiSdkEmbeddingModel,
  createAiSdkEmbedder,
} from './ai-sdk-embedder.js';
export {
  createEmbeddingModel,
  type EmbeddingModelOptions,
  INFERENCE_BASE_URL_VARIABLE,
} from './embedding-model.js';
export { toInferenceError } from './to-inference-error.js';
