import type { MemoryRef } from '@powercontext/memory-core';
import type { AssemblyContract } from './assembly-contract.js';

/**
 * Why a candidate is not in the context. `not_selected` (the reranker's selection left it out) is an
 * extension of the four packing reasons; it only occurs with selection evidence.
 */
export const OMISSION_REASONS = [
  'duplicate_of',
  'chunk_limit',
  'source_cap',
  'token_budget',
  'not_selected',
] as const;
export type OmissionReason = (typeof OMISSION_REASONS)[number];

/** Exact identity of a chunk: the memory revision, the entry, its version and its source. */
export interface ChunkProvenance {
  memoryRef: MemoryRef;
  entryId: string;
  entryVersionId: string;
  source: string;
}

interface CandidateFacts extends ChunkProvenance {
  /** The candidate's generator (coarse) rank, 1-based; the `ref` attribute of its block in the context. */
  ref: number;
  contentDigest: string;
  /** Its score, with score evidence. */
  score?: number;
}

export interface SelectedChunk extends CandidateFacts {
  /** 1-based position in the evidence order (best first). */
  evidenceRank: number;
  /** Tokens of the chunk's block in the framed context. */
  tokens: number;
}

export interface OmittedCandidate extends CandidateFacts {
  reason: OmissionReason;
  /** Position in the evidence order; absent for `not_selected`. */
  evidenceRank?: number;
  /**
   * With `token_budget` only: how far the count of its block got before it stopped, already more than
   * was left of the budget (a lower bound of what the block would take). Other omissions are decided
   * before any counting and carry none.
   */
  tokens?: number;
  /** With `duplicate_of`: the entry version id of the chosen chunk it repeats (always in the context). */
  duplicateOf?: string;
  /** With `duplicate_of`: `exact` (same bytes) or `near` (the contract's similarity rule). */
  duplicateMatch?: 'exact' | 'near';
  /** With a `near` duplicate: the similarity that met the threshold. */
  similarity?: number;
}

/** The plan a generator receives, and why every candidate is in it or not. */
export interface AssemblyReport {
  contract: AssemblyContract;
  /** `textDigest` of the contract's JSON: names the exact contract for replay and rollback. */
  contractDigest: string;
  evidence: {
    kind: 'scores' | 'selection';
    policyId: string;
    modelId: string;
    queryDigest: string;
    candidateSetDigest: string;
  };
  /** Chunks in the order of the framed context. */
  selected: SelectedChunk[];
  /** Every other candidate: packing omissions in evidence order, then `not_selected` in generator order. */
  omitted: OmittedCandidate[];
  omissionCounts: Record<OmissionReason, number>;
  /** Tokens of `context` under the contract's tokenizer: at most the budget. */
  totalTokens: number;
  /** Tokens of the frame without any chunk. */
  frameTokens: number;
  /** The framed context: retrieved text escaped inside a frame that marks it as untrusted data. */
  context: string;
}
