import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { parseModelSpec } from '@powercontext/inference';
import { PowerContextError } from '@powercontext/memory-core';
import type { AiSdkEmbeddingModel } from './ai-sdk-embedder.js';

/** The environment variable the server reads the inference base URL from. */
export const INFERENCE_BASE_URL_VARIABLE = 'POWERCONTEXT_SERVER_INFERENCE_BASE_URL';

export interface EmbeddingModelOptions {
  /** API root including the version path, e.g. `http://127.0.0.1:11434/v1`. */
  baseUrl?: string;
  /** Bearer token. For `openai:` the AI SDK falls back to `OPENAI_API_KEY` when absent. */
  apiKey?: string;
}

/**
 * Builds an AI SDK embedding model from a spec:
 * - `openai:<model>`: OpenAI's embeddings API (or `baseUrl`, when given);
 * - `openai-compatible:<model>`: any server speaking `POST <baseUrl>/embeddings` (Ollama, vLLM,
 *   llama.cpp); `baseUrl` is required.
 * Throws a PowerContextError `configuration_error` for a bad spec or a missing base URL.
 */
export function createEmbeddingModel(spec: string, options: EmbeddingModelOptions = {}): AiSdkEmbeddingModel {
  let parsed: ReturnType<typeof parseModelSpec>;
  try {
    parsed = parseModelSpec(spec);
  } catch (error) {
    throw new PowerContextError('configuration_error', (error as Error).message, { cause: error });
  }
  const baseUrl = options.baseUrl?.trim() || undefined;

  if (parsed.provider === 'openai') {
    return createOpenAI({ apiKey: options.apiKey, baseURL: baseUrl }).embedding(parsed.model);
  }
  if (baseUrl === undefined) {
    throw new PowerContextError(
      'configuration_error',
      `Model spec "${spec}" needs a base URL: set ${INFERENCE_BASE_URL_VARIABLE} ` +
        '(e.g. http://127.0.0.1:11434/v1) to the root of the OpenAI-compatible server',
    );
  }
  return createOpenAICompatible({
    name: 'openai-compatible',
    baseURL: baseUrl,
    apiKey: options.apiKey,
  }).embeddingModel(parsed.model);
}
