import type { InferenceUsage } from './inference-usage.js';

export interface RelevanceScoringRequest {
  query: string;
  /** Scored as given; the answer refers to them by 0-based index. */
  documents: readonly string[];
  /** Cancels the call; the adapter rethrows the caller's abort unwrapped. */
  signal?: AbortSignal;
}

/** One document's score as the model gave it. Higher is more relevant; the scale is the model's own. */
export interface RelevanceScore {
  index: number;
  score: number;
}

/** Usage of a scoring call: `documents` counts documents sent, over every request sent (retries too). */
export interface RelevanceScoringUsage extends InferenceUsage {
  documents: number;
}

export interface RelevanceScoringResult {
  /**
   * The scores as the model answered them, in its order. Adapters check the answer's shape, not its
   * coverage: an index may be missing or repeated, and the consumer decides what that means.
   */
  results: RelevanceScore[];
  usage: RelevanceScoringUsage;
}

/**
 * Scores documents against a query with a dedicated relevance model (a cross-encoder behind a rerank
 * endpoint). Adapters bound the time themselves and report failures as `InferenceError`.
 */
export interface RelevanceScorer {
  /** `<provider>:<model>` of the model behind it, for traces and evidence records. */
  readonly modelId: string;
  score(request: RelevanceScoringRequest): Promise<RelevanceScoringResult>;
}
