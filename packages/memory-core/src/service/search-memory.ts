import type { MemoryRef } from '../domain/memory-ref.js';
import { parseInput } from '../domain/parse-input.js';
import {
  type ChannelCandidate,
  type ChannelName,
  type FusedCandidate,
  type LexicalAdmissionFallback,
  type MemoryHit,
  type ParsedSearchRequest,
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
import type { ChannelQuery, ChannelResult, SearchChannel } from '../ports/search-channel.port.js';
import type { SearchObserver } from '../ports/search-observer.port.js';
import type { RerankStage } from '../rerank/rerank-stage.js';

export interface SearchDependencies {
  store: MemoryStore;
  embedder: Embedder;
  policy: RetrievalPolicy;
  /** The channels the policy fuses, by name, in its fusion order (see resolveSearchChannels). */
  channels: ReadonlyMap<ChannelName, SearchChannel>;
  logger: Logger;
  rerankStage?: RerankStage | undefined;
  observer?: SearchObserver | undefined;
}

export interface SearchOptions {
  /** Cancels the search, including a running rerank. */
  signal?: AbortSignal;
  /**
   * Adds to each returned hit where its lexical match came from, the entry's own words or its
   * neighbours' (`MemoryHit.lexicalMatch`, `SearchResult.lexicalQueryTerms`): one more read of the
   * store, for the returned hits only. Nothing is added in `vector` mode, which has no lexical channel.
   */
  explain?: boolean;
}

/**
 * RFC 0080's search. Steps 1-5, the coarse path: normalize, choose the mode by capability, run each
 * channel the mode allows within the scope at one head revision (RFC 0013), admit, fuse. Steps 6-8 when a reranker is configured:
 * rerank the non-empty pool, resolve the selected ranks to the original hits, return them with a trace.
 */
export async function searchMemory(
  deps: SearchDependencies,
  scopeId: string,
  request: SearchMemoryRequest,
  options: SearchOptions = {},
): Promise<SearchResult> {
  const parsed = parseInput(searchRequestSchema, request);
  deps.observer?.searchStarted?.({ requestedMode: parsed.mode, limit: parsed.limit });
  const began = performance.now();
  try {
    const result = await runSearch(deps, scopeId, parsed, options, began);
    deps.observer?.searchEnded?.({
      mode: result.mode,
      limit: parsed.limit,
      hitCount: result.hits.length,
      durationMs: performance.now() - began,
      reranked: result.trace !== undefined,
    });
    return result;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    deps.observer?.searchEnded?.({
      mode: parsed.mode === 'auto' ? 'fts' : parsed.mode,
      limit: parsed.limit,
      hitCount: 0,
      durationMs: performance.now() - began,
      reranked: false,
      error: typeof code === 'string' ? code : 'internal',
    });
    throw error;
  }
}

async function runSearch(
  deps: SearchDependencies,
  scopeId: string,
  { query, limit, mode: requestedMode }: ParsedSearchRequest,
  options: SearchOptions,
  began: number,
): Promise<SearchResult> {
  const { profile } = deps.embedder;
  // An fts search needs the head only; the others also need the vector index state at it.
  const read =
    requestedMode === 'fts'
      ? await readHead(deps.store, scopeId)
      : await readSearchHead(deps.store, scopeId, profile.id);
  const head = read?.memory;
  if (!read || !head) {
    return {
      memory: undefined,
      requestedMode,
      mode: requestedMode === 'auto' ? 'fts' : requestedMode,
      hits: [],
    };
  }
  const index = read.vectorIndex;
  let mode = chooseMode(requestedMode, index?.complete ?? false, index?.missing);
  let fallback: SearchFallback | undefined;

  const stage = deps.rerankStage;
  const coarseLimit = stage ? Math.max(limit, stage.candidateLimit) : limit;
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

  // The channels the mode allows, all at revision R, in parallel; each admitted by the policy by name.
  const channelQuery: ChannelQuery = {
    ...snapshot,
    text: query,
    limit: fetchLimit,
    ...(queryVector ? { embedding: { profile, vector: queryVector } } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
  const running = [...deps.channels.values()].filter((channel) => runsIn(mode, channel));
  const results = await Promise.all(running.map((channel) => channel.search(channelQuery)));
  const admitted: Partial<Record<ChannelName, ChannelCandidate[]>> = {};
  running.forEach((channel, index) => {
    admitted[channel.name] = deps.policy.admit(channel.name, results[index]!);
  });

  let kept = deps.policy.fuse(admitted, coarseLimit);
  // The admission rule is a ranking preference, not a reason to answer nothing: when it left no hit
  // at all but some entry matches a query term, those matches are the answer, and the result says so.
  let lexicalFallback: LexicalAdmissionFallback | undefined;
  const fallbacks = kept.length === 0 ? admissionFallbacks(deps.policy, running, results) : undefined;
  if (fallbacks) {
    kept = deps.policy.fuse(fallbacks.lists, coarseLimit);
    if (kept.length > 0) {
      lexicalFallback = {
        reason: 'no_candidate_met_term_threshold',
        queryTermCount: fallbacks.queryTermCount,
        admitted: kept.length,
      };
      deps.logger.info('memory.search.lexical_admission_fallback', {
        scopeId,
        queryTermCount: fallbacks.queryTermCount,
        admitted: kept.length,
      });
    }
  }
  const coarse = await readHits(deps.store, head, kept);
  const base = {
    memory: head,
    requestedMode,
    mode,
    ...(fallback ? { fallback } : {}),
    ...(lexicalFallback ? { lexicalFallback } : {}),
  };
  const explainer = running.find((channel) => channel.explainTerms);
  const explained = (result: SearchResult) =>
    options.explain && explainer ? explainTerms(explainer, channelQuery, result) : result;
  if (!stage || coarse.length === 0) return explained({ ...base, hits: coarse.slice(0, limit) });

  const { hits, trace } = await stage.run(query, coarse, limit, {
    coarseMs: performance.now() - began,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(deps.observer ? { observer: deps.observer } : {}),
    logger: deps.logger,
  });
  return explained({ ...base, hits, trace });
}

/**
 * The fused candidates as hits, in fused order: one read of their entry versions (immutable, so the
 * revision the channels searched needs no re-check). Channels return identities only, so text crosses
 * from the store for the kept candidates alone, however many each channel ranked. A version missing
 * from the read was purged after the channels read it; it is left out rather than cited.
 */
async function readHits(
  store: MemoryStore,
  head: MemoryRef,
  kept: readonly FusedCandidate[],
): Promise<MemoryHit[]> {
  if (kept.length === 0) return [];
  const versions = await store.entryVersions(
    head.scopeId,
    kept.map((candidate) => candidate.entryVersionId),
  );
  return kept.flatMap(({ entryId, entryVersionId, ...ranking }) => {
    const entry = versions.get(entryVersionId);
    if (!entry) return [];
    return [
      {
        citation: { artifactId: head.artifactId, revision: head.revision, entryId, entryVersionId },
        entry,
        text: entry.text,
        ...ranking,
      },
    ];
  });
}

/**
 * Whether a channel runs in a mode: `fts` runs the text channels, `vector` the embedding channels,
 * `hybrid` all of them.
 */
function runsIn(mode: SearchMode, channel: SearchChannel): boolean {
  return mode === 'hybrid' || (mode === 'fts' ? channel.needs === 'text' : channel.needs === 'embedding');
}

/**
 * What the channels' admission turned away that the policy still offers when nothing was admitted:
 * per channel that offers some, its list; and the query term count of the first of them (in fusion
 * order), which the result reports. Undefined when no channel offers any.
 */
function admissionFallbacks(
  policy: RetrievalPolicy,
  running: readonly SearchChannel[],
  results: readonly ChannelResult[],
): { lists: Partial<Record<ChannelName, ChannelCandidate[]>>; queryTermCount: number } | undefined {
  if (!policy.admitFallback) return undefined;
  const lists: Partial<Record<ChannelName, ChannelCandidate[]>> = {};
  let queryTermCount: number | undefined;
  running.forEach((channel, index) => {
    const result = results[index]!;
    if (result.candidates.length === 0) return;
    const below = policy.admitFallback!(channel.name, result);
    if (!below) return;
    lists[channel.name] = below;
    queryTermCount ??= result.queryTermCount ?? 0;
  });
  return queryTermCount === undefined ? undefined : { lists, queryTermCount };
}

/**
 * The returned hits with the sources of their lexical match, read at the search's revision by the
 * channel that explains terms (the lexical channel, RFC 0007, "Explain"). A hit that channel did not
 * find (a vector-only hit) gets empty lists: none of the query terms is in its projection.
 */
async function explainTerms(
  channel: SearchChannel,
  query: ChannelQuery,
  result: SearchResult,
): Promise<SearchResult> {
  const report = await channel.explainTerms!(
    query,
    result.hits.map((hit) => hit.citation.entryVersionId),
  );
  return {
    ...result,
    lexicalQueryTerms: report.queryTerms,
    hits: result.hits.map((hit) => ({
      ...hit,
      lexicalMatch: report.matches.get(hit.citation.entryVersionId) ?? { ownTerms: [], contextTerms: [] },
    })),
  };
}

async function readHead(store: MemoryStore, scopeId: string) {
  const memory = await store.head(scopeId);
  return memory ? { memory, vectorIndex: undefined } : undefined;
}

async function readSearchHead(store: MemoryStore, scopeId: string, profileId: string) {
  if (store.searchHead) return store.searchHead(scopeId, profileId);
  const memory = await store.head(scopeId);
  if (!memory) return undefined;
  return { memory, vectorIndex: await store.vectorIndexState(scopeId, memory.revision, profileId) };
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
