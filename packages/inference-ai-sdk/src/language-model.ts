import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { AiSdkLanguageModel } from './ai-sdk-structured-generator.js';
import { type ModelConnectionOptions, resolveModelConnection } from './model-connection.js';

export type LanguageModelOptions = ModelConnectionOptions;

/**
 * Builds an AI SDK language model from a spec, always over the chat-completions protocol
 * (`POST <baseUrl>/chat/completions`), which local servers also speak:
 * - `openai:<model>`: OpenAI's chat-completions API (or `baseUrl`, when given), not the Responses
 *   API that the provider's default `openai(id)` would call;
 * - `openai-compatible:<model>`: any OpenAI-compatible server (Ollama, vLLM, llama.cpp); `baseUrl`
 *   is required. Structured outputs are switched on, so the JSON schema of a structured request is
 *   sent as `response_format` (without it the provider silently drops the schema), and usage is
 *   requested on streams too.
 * Throws a PowerContextError `configuration_error` for a bad spec or a missing base URL.
 */
export function createLanguageModel(spec: string, options: LanguageModelOptions = {}): AiSdkLanguageModel {
  const connection = resolveModelConnection(spec, options);
  if (connection.provider === 'openai') {
    return createOpenAI({ apiKey: options.apiKey, baseURL: connection.baseUrl }).chat(connection.model);
  }
  return createOpenAICompatible({
    name: 'openai-compatible',
    baseURL: connection.baseUrl,
    apiKey: options.apiKey,
    supportsStructuredOutputs: true,
    includeUsage: true,
  }).chatModel(connection.model);
}
