import type { RerankingModelV3 } from '@ai-sdk/provider';
import {
  combineHeaders,
  createJsonResponseHandler,
  createStatusCodeErrorResponseHandler,
  type FetchFunction,
  postJsonToApi,
  withoutTrailingSlash,
} from '@ai-sdk/provider-utils';
import { z } from 'zod';

/** The provider name the endpoint model reports to the AI SDK. */
export const RERANK_ENDPOINT_PROVIDER = 'openai-compatible.rerank';

export interface RerankEndpointModelOptions {
  /** The model name the server knows, sent as `model`. */
  model: string;
  /** API root including the version path, e.g. `http://127.0.0.1:8080/v1`; requests go to `<baseUrl>/rerank`. */
  baseUrl: string;
  /** Sent as a bearer token when given. */
  apiKey?: string;
  /** For tests and proxies; defaults to the global fetch. */
  fetch?: FetchFunction;
}

/**
 * The answer of `POST /v1/rerank` as llama.cpp (`--rerank`) and vLLM serve it. Only `results` is
 * required; servers add `id`, `model`, `object`, `usage` and, with documents echoed, `document`.
 */
const rerankAnswerSchema = z.looseObject({
  results: z.array(
    z.looseObject({
      index: z.number(),
      relevance_score: z.number(),
    }),
  ),
});

/**
 * An AI SDK reranking model over the rerank protocol of llama.cpp and vLLM:
 * `POST <baseUrl>/rerank { model, query, documents, top_n }` answering
 * `{ results: [{ index, relevance_score }] }`. Neither `@ai-sdk/openai` nor `@ai-sdk/openai-compatible`
 * has a reranking model, so this implements the AI SDK's reranking model interface over that protocol,
 * and the AI SDK `rerank()` drives it (retries, abort, index range check).
 *
 * HTTP failures surface as AI SDK `APICallError`s (408, 409, 429 and 5xx retryable); a body that is not
 * JSON or has no `results` of `{ index, relevance_score }` is an `APICallError` with the 2xx status,
 * which `toInferenceError` reads as invalid output. The raw body is passed on as `response.body`, so
 * callers can read the `usage` the server reports.
 */
export function createRerankEndpointModel(options: RerankEndpointModelOptions): RerankingModelV3 {
  const url = `${withoutTrailingSlash(options.baseUrl)}/rerank`;
  return {
    specificationVersion: 'v3',
    provider: RERANK_ENDPOINT_PROVIDER,
    modelId: options.model,
    async doRerank({ documents, query, topN, abortSignal, headers }) {
      const texts =
        documents.type === 'text' ? documents.values : documents.values.map((value) => JSON.stringify(value));
      const { value, rawValue, responseHeaders } = await postJsonToApi({
        url,
        headers: combineHeaders(
          options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
          headers ?? {},
        ),
        body: { model: options.model, query, documents: texts, top_n: topN ?? texts.length },
        failedResponseHandler: createStatusCodeErrorResponseHandler(),
        successfulResponseHandler: createJsonResponseHandler(rerankAnswerSchema),
        ...(abortSignal ? { abortSignal } : {}),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      });
      return {
        ranking: value.results.map((result) => ({
          index: result.index,
          relevanceScore: result.relevance_score,
        })),
        response: {
          modelId: options.model,
          ...(responseHeaders ? { headers: responseHeaders } : {}),
          body: rawValue,
        },
      };
    },
  };
}
