import { type ModelSpec, parseModelSpec } from '@powercontext/inference';
import { PowerContextError } from '@powercontext/memory-core';

/** The environment variable the server reads the inference base URL from. */
export const INFERENCE_BASE_URL_VARIABLE = 'POWERCONTEXT_SERVER_INFERENCE_BASE_URL';

/** Where and how to reach the provider of a `<provider>:<model>` spec. */
export interface ModelConnectionOptions {
  /** API root including the version path, e.g. `http://127.0.0.1:11434/v1`. */
  baseUrl?: string;
  /** Bearer token. For `openai:` the AI SDK falls back to `OPENAI_API_KEY` when absent. */
  apiKey?: string;
}

/** A parsed spec with its base URL, which an `openai-compatible` spec always has. */
export type ModelConnection =
  | { provider: 'openai'; model: string; baseUrl: string | undefined }
  | { provider: 'openai-compatible'; model: string; baseUrl: string };

/**
 * Parses `spec` and checks that its provider can be reached: `openai-compatible` needs a base URL
 * (blank counts as missing). Throws a PowerContextError `configuration_error` for a bad spec or a
 * missing base URL.
 */
export function resolveModelConnection(spec: string, options: ModelConnectionOptions): ModelConnection {
  let parsed: ModelSpec;
  try {
    parsed = parseModelSpec(spec);
  } catch (error) {
    throw new PowerContextError('configuration_error', (error as Error).message, { cause: error });
  }
  const baseUrl = options.baseUrl?.trim() || undefined;
  if (parsed.provider === 'openai') return { provider: 'openai', model: parsed.model, baseUrl };
  if (baseUrl === undefined) {
    throw new PowerContextError(
      'configuration_error',
      `Model spec "${spec}" needs a base URL: set ${INFERENCE_BASE_URL_VARIABLE} ` +
        '(e.g. http://127.0.0.1:11434/v1) to the root of the OpenAI-compatible server',
    );
  }
  return { provider: 'openai-compatible', model: parsed.model, baseUrl };
}
