import { parseInput } from '../domain/parse-input.js';
import { lexicalQueryOf } from '../domain/query-normalization.js';
import {
  type ChannelCandidate,
  type FusedCandidate,
  type LexicalCandidate,
  type SearchMemoryRequest,
  type SearchMode,
  searchRequestSchema,
} from '../domain/search.js';
import type { Embedder } from '../ports/embedder.port.js';
import type { MemoryStore } from '../ports/memory-store.port.js';
import type { Bm25Parameters } from '../ports/retrieval-policy.port.js';
import { chooseMode } from '../service/search-memory.js';

/** The parameters of RFC 0002's two-channel coarse path (retrieval policy rrf.v3 and its variants). */
export interface TwoChannelParameters {
  bm25: Bm25Parameters;
  rrfK: number;
  weights: { fts: number; vector: number };
  fetchMultiplier: number;
  fetchFloor: number;
  lexicalFallback: boolean;
}

/** What the reference answers: the mode, the fallback, and each hit's identity and ranking. */
export interface TwoChannelAnswer {
  mode: SearchMode;
  lexicalFallback?: { queryTermCount: number; admitted: number };
  hits: FusedCandidate[];
}

/**
 * RFC 0002's coarse path as the search ran it before channels became a port (23b9583, no reranker):
 * one head read, the lexical and vector channels called by name, the term rule and the cosine
 * threshold, weighted RRF over exactly those two lists, the lexical admission fallback, and the read of
 * the kept versions. Kept unchanged as the reference that the N-channel search, run with fts and
 * vector only, must reproduce exactly (RFC 0013).
 */
export async function twoChannelCoarseSearch(
  store: MemoryStore,
  embedder: Embedder,
  parameters: TwoChannelParameters,
  scopeId: string,
  request: SearchMemoryRequest,
): Promise<TwoChannelAnswer> {
  const { query, limit, mode: requested } = parseInput(searchRequestSchema, request);
  const { profile } = embedder;
  const memory = await store.head(scopeId);
  if (!memory) return { mode: requested === 'auto' ? 'fts' : requested, hits: [] };
  const index =
    requested === 'fts' ? undefined : await store.vectorIndexState(scopeId, memory.revision, profile.id);
  let mode = chooseMode(requested, index?.complete ?? false, index?.missing);
  const fetchLimit = Math.max(parameters.fetchMultiplier * limit, parameters.fetchFloor);
  const snapshot = { scopeId, revision: memory.revision };
  let queryVector: number[] | undefined;
  if (mode !== 'fts') {
    try {
      queryVector = (await embedder.embed([query]))[0];
    } catch (error) {
      if (requested !== 'auto') throw error;
      mode = 'fts';
    }
  }
  const [lexical, vector] = await Promise.all([
    mode === 'vector'
      ? undefined
      : store.lexicalSearch({
          ...snapshot,
          query: lexicalQueryOf(query),
          limit: fetchLimit,
          bm25: parameters.bm25,
        }),
    queryVector
      ? store.vectorSearch({ ...snapshot, profileId: profile.id, vector: queryVector, limit: fetchLimit })
      : undefined,
  ]);
  const channels: { fts?: ChannelCandidate[]; vector?: ChannelCandidate[] } = {};
  if (lexical) channels.fts = admitLexical(lexical.candidates, lexical.queryTermCount);
  if (vector) channels.vector = renumber(vector.filter((candidate) => candidate.score >= profile.minCosine));
  let kept = fuse(channels, limit, parameters);
  let lexicalFallback: TwoChannelAnswer['lexicalFallback'];
  if (kept.length === 0 && lexical && lexical.candidates.length > 0 && parameters.lexicalFallback) {
    const required = requiredMatchedTerms(lexical.queryTermCount);
    const below = lexical.candidates.filter((c) => c.matchedTerms >= 1 && c.matchedTerms < required);
    kept = fuse({ fts: renumber(below) }, limit, parameters);
    if (kept.length > 0) lexicalFallback = { queryTermCount: lexical.queryTermCount, admitted: kept.length };
  }
  const versions = await store.entryVersions(
    scopeId,
    kept.map((candidate) => candidate.entryVersionId),
  );
  return {
    mode,
    ...(lexicalFallback ? { lexicalFallback } : {}),
    hits: kept.filter((candidate) => versions.has(candidate.entryVersionId)),
  };
}

function requiredMatchedTerms(queryTermCount: number): number {
  return queryTermCount <= 2 ? 1 : Math.max(2, Math.ceil(queryTermCount / 4));
}

function admitLexical(candidates: readonly LexicalCandidate[], queryTermCount: number): LexicalCandidate[] {
  const required = requiredMatchedTerms(queryTermCount);
  return renumber(candidates.filter((candidate) => candidate.matchedTerms >= required));
}

function renumber<T extends ChannelCandidate>(candidates: readonly T[]): T[] {
  return candidates.map((candidate, index) => ({ ...candidate, rank: index + 1 }));
}

function fuse(
  channels: { fts?: readonly ChannelCandidate[]; vector?: readonly ChannelCandidate[] },
  limit: number,
  { rrfK, weights }: TwoChannelParameters,
): FusedCandidate[] {
  const fused = new Map<string, FusedCandidate>();
  for (const channel of ['fts', 'vector'] as const) {
    for (const candidate of channels[channel] ?? []) {
      const id = candidate.entryVersionId;
      const entry = fused.get(id) ?? {
        entryId: candidate.entryId,
        entryVersionId: id,
        score: 0,
        matchedBy: [],
        channelRanks: {},
        channelScores: {},
        channelContributions: {},
      };
      const contribution = weights[channel] / (rrfK + candidate.rank);
      entry.score += contribution;
      entry.channelContributions![channel] = contribution;
      entry.matchedBy.push(channel);
      entry.channelRanks[channel] = candidate.rank;
      entry.channelScores[channel] = candidate.score;
      fused.set(id, entry);
    }
  }
  const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...fused.values()]
    .sort(
      (a, b) =>
        b.score - a.score || compare(a.entryId, b.entryId) || compare(a.entryVersionId, b.entryVersionId),
    )
    .slice(0, limit);
}
