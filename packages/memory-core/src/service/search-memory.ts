import { parseInput } from '../domain/parse-input.js';
import {
  type ChannelCandidate,
  type MemoryHit,
  type SearchFallback,
  type SearchMemoryRequest,
  type SearchMode,
  type SearchModeRequest,
  type SearchResult,
  searchRequestSchema,
} from '../domain/search.js';
import { CapabilityUnavailableError } from '../errors/capability-unavailable-error.js';
import type { Embedder } from '../ports/embedder.port.js';
import type { Logger } from '../ports/logger.port.js';
import type { MemoryStore } from '../ports/memory-store.port.js';
import type { RetrievalPolicy } from '../ports/retrieval-policy.port.js';

export interface SearchDependencies {
  store: MemoryStore;
  embedder: Embedder;
  policy: RetrievalPolicy;
  logger: Logger;
}

/**
 * The coarse path (RFC 0080 steps 1-5): normalize, choose the mode by capability, fetch each channel
 * within the scope at one head revision, admit, fuse with the retrieval policy, return the first `limit`.
 */
export async function searchMemory(
  deps: SearchDependencies,
  scopeId: string,
  request: SearchMemoryRequest,
): Promise<SearchResult> {
  const { query, limit, mode: requestedMode } = parseInput(searchRequestSchema, request);
  const head = await deps.store.head(scopeId);
  if (!head) {
    return {
      memory: undefined,
      requestedMode,
      mode: requestedMode === 'auto' ? 'fts' : requestedMode,
      hits: [],
    };
  }
  const { profile } = deps.embedder;
  const index = await deps.store.vectorIndexState(scopeId, head.revision, profile.id);
  let mode = chooseMode(requestedMode, index.complete, index.missing);
  let fallback: SearchFallback | undefined;

  const coarseLimit = limit;
  const fetchLimit = deps.policy.channelFetchLimit(coarseLimit);
  const snapshot = { scopeId, revision: head.revision };

  let queryVector: number[] | undefined;
  if (mode !== 'fts') {
    try {
      queryVector = (await deps.embedder.embed([query]))[0];
      if (!queryVector) throw new Error('the embedder returned no vector');
    } catch (error) {
      if (requestedMode !== 'auto') {
        throw new CapabilityUnavailableError('query_embedding', 'the query could not be embedded', {
          cause: error,
        });
      }
      deps.logger.warn('memory.search.query_embedding_failed', { scopeId, profileId: profile.id });
      fallback = { from: mode, to: 'fts', reason: 'query_embedding_failed' };
      mode = 'fts';
    }
  }

  const [lexical, vector] = await Promise.all([
    mode === 'vector'
      ? undefined
      : deps.store.lexicalSearch({ ...snapshot, query, limit: fetchLimit, bm25: deps.policy.bm25 }),
    queryVector
      ? deps.store.vectorSearch({
          ...snapshot,
          profileId: profile.id,
          vector: queryVector,
          limit: fetchLimit,
        })
      : undefined,
  ]);

  const channels: { fts?: ChannelCandidate[]; vector?: ChannelCandidate[] } = {};
  if (lexical) channels.fts = deps.policy.admitLexical(lexical.candidates, lexical.queryTermCount);
  if (vector) channels.vector = deps.policy.admitVector(vector, profile.minCosine);

  const toHit = (
    candidate: ChannelCandidate,
  ): Omit<MemoryHit, 'score' | 'matchedBy' | 'channelRanks' | 'channelScores'> => ({
    citation: {
      artifactId: head.artifactId,
      revision: head.revision,
      entryId: candidate.version.entryId,
      entryVersionId: candidate.version.entryVersionId,
    },
    entry: candidate.version,
    text: candidate.version.text,
  });
  const coarse = deps.policy.fuse(channels, coarseLimit, toHit);

  return {
    memory: head,
    requestedMode,
    mode,
    ...(fallback ? { fallback } : {}),
    hits: coarse.slice(0, limit),
  };
}

/** auto = hybrid when the vector index is complete, else fts; explicit vector modes need the index. */
export function chooseMode(
  requested: SearchModeRequest,
  vectorIndexComplete: boolean,
  missing = 0,
): SearchMode {
  if (requested === 'auto') return vectorIndexComplete ? 'hybrid' : 'fts';
  if (requested !== 'fts' && !vectorIndexComplete) {
    throw new CapabilityUnavailableError(
      'vector_index',
      `${missing} active entries have no vector of the configured embedding profile; run the re-embed command`,
    );
  }
  return requested;
}
