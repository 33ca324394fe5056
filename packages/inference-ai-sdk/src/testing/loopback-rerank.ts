/**
 * Answers of the rerank protocol that llama.cpp (`--rerank`) and vLLM serve at `POST /v1/rerank`, for
 * the loopback server of `loopback-provider.ts`: `{ model, query, documents, top_n }` in,
 * `{ results: [{ index, relevance_score }] }` out.
 */
import type { ServerResponse } from 'node:http';
import { type RecordedRequest, type Responder, sendJson } from './loopback-provider.js';

/** The request body of the rerank protocol. */
export interface RerankRequestBody {
  model: string;
  query: string;
  documents: string[];
  top_n?: number;
}

export interface RerankResult {
  index: number;
  relevance_score: number;
}

export interface RerankAnswerOptions {
  /** Reported as `usage`; `null` leaves it out. Default `{ prompt_tokens: 5 * documents, total_tokens: same }`. */
  usage?: { prompt_tokens?: number; total_tokens?: number } | null;
  /** Changes the results before they are sent (drop, repeat or move indices to test invalid answers). */
  results?: (results: RerankResult[]) => RerankResult[];
}

/**
 * Answers a rerank request: each document scored by `scoreOf(query, document, index)`, sorted by score
 * descending as the servers do, cut to `top_n`.
 */
export function rerankAnswer(
  response: ServerResponse,
  request: RecordedRequest,
  scoreOf: (query: string, document: string, index: number) => number,
  options: RerankAnswerOptions = {},
) {
  const body = request.body as RerankRequestBody;
  const scored = body.documents
    .map((document, index) => ({ index, relevance_score: scoreOf(body.query, document, index) }))
    .sort((a, b) => b.relevance_score - a.relevance_score)
    .slice(0, body.top_n ?? body.documents.length);
  const usage =
    options.usage === undefined
      ? { prompt_tokens: 5 * body.documents.length, total_tokens: 5 * body.documents.length }
      : options.usage;
  sendJson(response, 200, {
    id: `rerank-${Math.random().toString(36).slice(2)}`,
    model: body.model,
    object: 'list',
    results: options.results ? options.results(scored) : scored,
    ...(usage === null ? {} : { usage }),
  });
}

/** A score from shared words: the number of distinct query words found in the document. */
export function sharedWordScore(query: string, document: string): number {
  const words = (text: string) => new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  const documentWords = words(document);
  return [...words(query)].filter((word) => documentWords.has(word)).length;
}

/** A responder for `POST .../rerank` that scores with `scoreOf` (default: shared words); 404 for any other path. */
export function rerankResponder(
  scoreOf: (query: string, document: string, index: number) => number = sharedWordScore,
  options: RerankAnswerOptions = {},
): Responder {
  return (request, response) => {
    if (request.method !== 'POST' || !request.path.endsWith('/rerank')) {
      sendJson(response, 404, { error: { message: `no route ${request.path}`, type: 'not_found' } });
      return;
    }
    rerankAnswer(response, request, scoreOf, options);
  };
}
