import type { RerankDegradationReason, SearchMode } from '../domain/search.js';
import type { RerankUsage } from './memory-reranker.port.js';

export type RerankOutcome = 'selected' | 'fallback' | 'degraded' | 'failed';
/** Why a rerank degraded under fail_open (same as the trace's reason). */
export type DegradationReason = RerankDegradationReason;

/** Events of one search. They carry counts, ids and outcomes; never query text or candidate text. */
export interface SearchEndEvent {
  mode: SearchMode;
  limit: number;
  hitCount: number;
  durationMs: number;
  reranked: boolean;
  error?: string;
}

export interface RerankStartEvent {
  policyId: string;
  candidateCount: number;
  limit: number;
}

export interface RerankEndEvent extends RerankStartEvent {
  outcome: RerankOutcome;
  selectedCount: number;
  discardedRankCount: number;
  degradationReason?: DegradationReason;
  errorCode?: string;
  queueWaitMs: number;
  durationMs: number;
  saturated: boolean;
  usage: RerankUsage;
}

/** Dependency-free observability port; an OpenTelemetry adapter lives outside the core. */
export interface SearchObserver {
  searchStarted?(event: { requestedMode: string; limit: number }): void;
  searchEnded?(event: SearchEndEvent): void;
  rerankStarted?(event: RerankStartEvent): void;
  rerankEnded?(event: RerankEndEvent): void;
}
