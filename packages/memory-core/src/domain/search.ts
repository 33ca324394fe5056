import { z } from 'zod';
import type { AuthorityAdjustment } from './authority.js';
import { entryFilterSchema } from './entry-filter.js';
import type { EntryVersion } from './memory-entry.js';
import type { MemoryRef } from './memory-ref.js';
import { normalizeQuery } from './query-normalization.js';
import { scopeIdSchema, storableText } from './text-rules.js';

export const QUERY_MAX_CHARS = 8_192;
/** At most this many scopes in one search (issue 29, "Several scopes"). */
export const SEARCH_SCOPES_MAX = 16;

/** The scopes of a multi-scope search: 1-16 distinct scope ids, read and fused in this order. */
export const searchScopeIdsSchema = z
  .array(scopeIdSchema, { error: 'scopeIds must be an array of scope ids' })
  .min(1, { error: 'scopeIds must name at least 1 scope' })
  .max(SEARCH_SCOPES_MAX, { error: `scopeIds must name at most ${SEARCH_SCOPES_MAX} scopes` })
  .refine((ids) => new Set(ids).size === ids.length, { error: 'scopeIds must not name a scope twice' });

/**
 * Whether a search over several scopes runs the configured reranker on the fused pool (`rerank`) or
 * returns the fused order (`skip`, the default, as seed 003's global queries do).
 */
export type MultiScopeRerank = 'skip' | 'rerank';
export const SEARCH_LIMIT_MAX = 50;
export const SEARCH_LIMIT_DEFAULT = 10;

export type SearchModeRequest = 'auto' | 'fts' | 'vector' | 'hybrid';
export type SearchMode = 'fts' | 'vector' | 'hybrid';
/**
 * The name of a search channel (RFC 0013): `fts` (BM25 over the lexical index) and `vector` (cosine over
 * the embeddings) by default, `entity` and `graph` when configured, or any name an application gives a
 * channel of its own. Names are what `matchedBy`, `channelRanks` and the explain report.
 */
export type ChannelName = 'fts' | 'vector' | 'entity' | 'graph' | (string & {});
/** The name of a search channel; kept for the two-channel days, when it was `'fts' | 'vector'`. */
export type Channel = ChannelName;

export const searchRequestSchema = z.strictObject({
  query: storableText('query', 1, 1_000_000)
    .transform(normalizeQuery)
    .refine((value) => value.length >= 1, { error: 'query must contain a non-space character' })
    .refine((value) => value.length <= QUERY_MAX_CHARS, {
      error: `query must be at most ${QUERY_MAX_CHARS} characters after normalization`,
    }),
  limit: z
    .int({ error: 'limit must be an integer' })
    .min(1, { error: 'limit must be at least 1' })
    .max(SEARCH_LIMIT_MAX, { error: `limit must be at most ${SEARCH_LIMIT_MAX}` })
    .default(SEARCH_LIMIT_DEFAULT),
  mode: z
    .enum(['auto', 'fts', 'vector', 'hybrid'], { error: 'mode must be one of auto, fts, vector, hybrid' })
    .default('auto'),
  /** Only entries the filter keeps (RFC 0014), applied inside each channel before its top-k. */
  filter: entryFilterSchema.optional(),
});

export type SearchMemoryRequest = z.input<typeof searchRequestSchema>;
export type ParsedSearchRequest = z.output<typeof searchRequestSchema>;

/**
 * One channel's view of a candidate before fusion: which entry version, not what it says. A search reads
 * the content of the candidates it keeps after fusion only (`MemoryStore.entryVersions`), so a channel
 * never ships the text of candidates that fusion drops. Ranks are 1-based within the channel.
 */
export interface ChannelCandidate {
  entryId: string;
  entryVersionId: string;
  rank: number;
  /** The channel's own score: BM25 for fts, cosine similarity for vector, summed IDF for entity and graph. */
  score: number;
  /** Distinct query terms the candidate matched, for channels that match terms (lexemes, entities). */
  matchedTerms?: number;
}

export interface LexicalCandidate extends ChannelCandidate {
  /** Distinct query lexemes found in the entry. */
  matchedTerms: number;
}

/** What fusion says of a candidate: its fused score and what each channel said of it. */
export interface FusedRanking {
  /** Fused score (RRF under the shipped policies). */
  score: number;
  /** The channels that found the candidate, in the policy's fusion order. */
  matchedBy: ChannelName[];
  channelRanks: Partial<Record<ChannelName, number>>;
  channelScores: Partial<Record<ChannelName, number>>;
  /** What each channel added to `score`, when the policy's fusion is a sum over channels (RRF). */
  channelContributions?: Partial<Record<ChannelName, number>>;
}

/** A candidate after fusion, in fused order: its identity and its ranking, not yet its content. */
export interface FusedCandidate extends FusedRanking {
  entryId: string;
  entryVersionId: string;
}

/**
 * A final or coarse search hit: exact identity, text, fused score and per-channel ranks. In a search of
 * several scopes, `score` is the score of the fusion across scopes and `scopeRank` the hit's rank in its
 * own scope's fused list; `channelRanks` and `channelContributions` stay those of its own scope.
 */
export interface MemoryHit extends FusedRanking {
  citation: {
    /** The scope the hit was read from; with `artifactId`, what keeps two scopes' hits apart. */
    scopeId: string;
    artifactId: string;
    revision: number;
    entryId: string;
    entryVersionId: string;
  };
  entry: EntryVersion;
  text: string;
  /** Set on the returned hits of a search run with `explain` that had a lexical channel. */
  lexicalMatch?: LexicalMatchSources;
  /**
   * Set on every hit of a search whose policy has authority weights (RFC 0014): the fused score and
   * the boost that made `score` (score = fusedScore x (1 + boost)).
   */
  authority?: AuthorityAdjustment;
  /** In a search of several scopes: the hit's 1-based rank in its own scope's fused list. */
  scopeRank?: number;
}

/**
 * Where the query terms an entry's lexical projection matched came from (RFC 0007, "Explain"). Terms
 * are the query's distinct lexemes as the store's analysis produced them (folded, lower-cased and, on
 * the SQL stores, stemmed), in the order of their first appearance in the query.
 */
export interface LexicalMatchSources {
  /** Matched terms that occur in the entry's own text (they may occur in its neighbours' too). */
  ownTerms: string[];
  /** Matched terms that only the neighbour context brought into the entry's projection. */
  contextTerms: string[];
}

/** Which query terms each asked version matched, from the lexical index (RFC 0007, "Explain"). */
export interface LexicalMatchReport {
  /** The query's distinct terms after the store's analysis, in order of first appearance. */
  queryTerms: string[];
  /**
   * Per asked entry version with a lexical projection visible at the revision: the query terms the
   * projection holds, split into the entry's own and its neighbours' (in `queryTerms` order).
   */
  matches: Map<string, LexicalMatchSources>;
}

export interface SearchFallback {
  from: SearchMode;
  to: SearchMode;
  reason: 'query_embedding_failed';
}

/**
 * Set when the lexical admission rule (a query of 3+ terms must match several of them) admitted
 * nothing and the search fell back to the lexical candidates it had turned away, so that a query whose
 * terms match some entry never answers empty. Those hits rank after any strictly admitted one.
 */
export interface LexicalAdmissionFallback {
  reason: 'no_candidate_met_term_threshold';
  /** Distinct query terms after the store's analysis. */
  queryTermCount: number;
  /** How many hits (of the coarse list, before any rerank) the fallback admitted. */
  admitted: number;
}

export type RerankDegradationReason =
  | 'timeout'
  | 'unavailable'
  | 'invalid_output'
  | 'saturated'
  | 'deadline'
  | 'rerank_failure';

/**
 * In-process diagnostics of the rerank stage. It holds candidate text and is as sensitive as search
 * output; the HTTP v1 contract does not return it.
 */
export interface RerankTrace {
  policyId: string;
  /** The reranker's `modelId`, when it declares one. */
  modelId?: string;
  /** The exact coarse pool the reranker saw, in fused order (rank = index + 1). */
  candidates: MemoryHit[];
  selectedRanks: number[];
  discardedRankCount: number;
  ignoredAfterLimitCount: number;
  /** RFC 0080 meaning only: a validated output held no usable rank. */
  usedFallback: boolean;
  truncatedRanks: number[];
  /** Set under the fail_open stage policy when the rerank failed and coarse ranks were returned. */
  degraded?: { reason: RerankDegradationReason; errorCode?: string };
  latencies: { coarseMs: number; queueWaitMs: number; rerankMs: number };
  usage: {
    requests: number;
    calls: number;
    inputTokens?: number;
    outputTokens?: number;
    totalTokens?: number;
    documents?: number;
  };
}

/** One scope a search read: the revision it read, or undefined when the scope was never written. */
export interface ScopeRead {
  scopeId: string;
  memory: MemoryRef | undefined;
}

/**
 * What a search of several scopes did (issue 29, "Several scopes"): how many scopes it fused, and
 * whether the reranker ran on the fused pool (`reranked`), was configured but left out under
 * POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_MULTI_SCOPE=skip (`skipped`), or had nothing to do (`none`:
 * no reranker configured, or an empty pool).
 */
export interface MultiScopeReport {
  scopeCount: number;
  rerank: 'reranked' | 'skipped' | 'none';
}

export interface SearchResult {
  /**
   * The revision every hit was read from, when the search read one scope; undefined when that scope has
   * never been written, and in a search of several scopes (see `scopes`).
   */
  memory: MemoryRef | undefined;
  /** Every scope the search read, in the order asked, each at the revision it was read. */
  scopes: ScopeRead[];
  /** Set on a search of several scopes. */
  multiScope?: MultiScopeReport;
  requestedMode: SearchModeRequest;
  mode: SearchMode;
  /** Set when `auto` had to fall back from hybrid to fts. */
  fallback?: SearchFallback;
  /** Set when the lexical channel fell back to candidates below its admission rule. */
  lexicalFallback?: LexicalAdmissionFallback;
  /**
   * With `explain`, when the search had a lexical channel: the query's distinct terms after the store's
   * analysis, in query order. Each returned hit then carries its `lexicalMatch`.
   */
  lexicalQueryTerms?: string[];
  hits: MemoryHit[];
  /** Present when a reranker ran on a non-empty pool. */
  trace?: RerankTrace;
}
