import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { AiSdkEmbeddingModel } from './ai-sdk-embedder.js';
import { type ModelConnectionOptions, resolveModelConnection } from './model-connection.js';

export type EmbeddingModelOptions = ModelConnectionOptions;

/**
 * Builds an AI SDK embedding model from a spec:
 * - `openai:<model>`: OpenAI's embeddings API (or `baseUrl`, when given);
 * - `openai-compatible:<model>`: any server speaking `POST <baseUrl>/embeddings` (Ollama, vLLM,
 *   llama.cpp); `baseUrl` is required.
 * Throws a PowerContextError `configuration_error` for a bad spec or a missing base URL.
 */
export function createEmbeddingModel(spec: string, options: EmbeddingModelOptions = {}): AiSdkEmbeddingModel {
  const connection = resolveModelConnection(spec, options);
  if (connection.provider === 'openai') {
    return createOpenAI({ apiKey: options.apiKey, baseURL: connection.baseUrl }).embedding(connection.model);
  }
  return createOpenAICompatible({
    name: 'openai-compatible',
    baseURL: connection.baseUrl,
    apiKey: options.apiKey,
  }).embeddingModel(connection.model);
}
