import { effectiveFilter } from '../domain/entry-filter.js';
import { parseInput } from '../domain/parse-input.js';
import {
  type ChannelName,
  type LexicalMatchSources,
  type MemoryHit,
  type MultiScopeReport,
  type MultiScopeRerank,
  type ParsedSearchRequest,
  type ScopeRead,
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
import type { SearchChannel } from '../ports/search-channel.port.js';
import type { SearchObserver } from '../ports/search-observer.port.js';
import type { RerankStage } from '../rerank/rerank-stage.js';
import { applyAuthority } from './authority-step.js';
import { fuseScopes } from './fuse-scopes.js';
import {
  admitBelowThreshold,
  readHits,
  refuseUnfilteredChannels,
  type ScopeCoarse,
  type ScopeSearchPlan,
  searchScopes,
} from './search-scope.js';

export interface SearchDependencies {
  store: MemoryStore;
  embedder: Embedder;
  policy: RetrievalPolicy;
  /** The channels the policy fuses, by name, in its fusion order (see resolveSearchChannels). */
  channels: ReadonlyMap<ChannelName, SearchChannel>;
  logger: Logger;
  rerankStage?: RerankStage | undefined;
  /** Whether a search of several scopes runs `rerankStage` (default `skip`). */
  multiScopeRerank?: MultiScopeRerank | undefined;
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
 * channel the mode allows within each scope at its head revision (RFC 0013), admit, fuse, then the
 * policy's authority step when it has one (RFC 0014). Steps 6-8 when
 * a reranker is configured: rerank the non-empty pool, resolve the selected ranks to the original hits,
 * return them with a trace.
 *
 * Given several scopes (1-16, validated by the caller), every scope runs the coarse path at its own head
 * and the scopes' fused lists are fused again by RRF (`fuseScopes`); the reranker then runs on that pool
 * only under `multiScopeRerank: 'rerank'` (issue 29, "Several scopes").
 */
export async function searchMemory(
  deps: SearchDependencies,
  scopeIds: string | readonly string[],
  request: SearchMemoryRequest,
  options: SearchOptions = {},
): Promise<SearchResult> {
  const parsed = parseInput(searchRequestSchema, request);
  deps.observer?.searchStarted?.({ requestedMode: parsed.mode, limit: parsed.limit });
  const began = performance.now();
  try {
    const scopes = typeof scopeIds === 'string' ? [scopeIds] : scopeIds;
    const result = await runSearch(deps, scopes, parsed, options, began);
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
  scopeIds: readonly string[],
  { query, limit, mode: requestedMode, filter: requestedFilter }: ParsedSearchRequest,
  options: SearchOptions,
  began: number,
): Promise<SearchResult> {
  const { profile } = deps.embedder;
  const filter = effectiveFilter(requestedFilter);
  // An fts search needs the head only; the others also need the vector index state at it.
  const reads =
    requestedMode === 'fts'
      ? await readHeads(deps.store, scopeIds)
      : await readSearchHeads(deps.store, scopeIds, profile.id);
  const several = scopeIds.length > 1;
  const scopes: ScopeRead[] = scopeIds.map((scopeId, index) => ({ scopeId, memory: reads[index]?.memory }));
  const heads = reads.flatMap((read) =>
    read?.memory ? [{ head: read.memory, index: read.vectorIndex }] : [],
  );
  // With several scopes the reranker runs only when configured to (seed 003 skips it for global queries).
  const stage = several && deps.multiScopeRerank !== 'rerank' ? undefined : deps.rerankStage;
  const multiScope = (rerank: MultiScopeReport['rerank']) =>
    several ? { multiScope: { scopeCount: scopeIds.length, rerank } } : {};
  const base = {
    memory: several ? undefined : heads[0]?.head,
    scopes,
    requestedMode,
    ...multiScope(deps.rerankStage && !stage ? 'skipped' : 'none'),
  };
  if (heads.length === 0)
    return { ...base, mode: requestedMode === 'auto' ? 'fts' : requestedMode, hits: [] };

  // One mode for every scope: hybrid only when each written scope's vector index is complete.
  let mode = chooseMode(
    requestedMode,
    heads.every(({ index }) => index?.complete ?? false),
    heads.reduce((sum, { index }) => sum + (index?.missing ?? 0), 0),
  );
  let fallback: SearchFallback | undefined;
  const coarseLimit = stage ? Math.max(limit, stage.candidateLimit) : limit;
  const fetchLimit = deps.policy.channelFetchLimit(coarseLimit);

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
      deps.logger.warn('memory.search.query_embedding_failed', {
        scopeId: scopeIds.join(','),
        profileId: profile.id,
      });
      fallback = { from: mode, to: 'fts', reason: 'query_embedding_failed' };
      mode = 'fts';
    }
  }

  const plan: ScopeSearchPlan = {
    text: query,
    mode,
    fetchLimit,
    coarseLimit,
    ...(queryVector ? { embedding: { profile, vector: queryVector } } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(filter ? { filter } : {}),
  };
  refuseUnfilteredChannels(deps.channels, mode, filter);
  let searched = await searchScopes(
    deps.channels,
    deps.policy,
    heads.map(({ head }) => head),
    plan,
  );
  const below = admitBelowThreshold(deps.policy, searched, coarseLimit);
  if (below) {
    searched = below.scopes;
    deps.logger.info('memory.search.lexical_admission_fallback', {
      scopeId: scopeIds.join(','),
      queryTermCount: below.fallback.queryTermCount,
      admitted: below.fallback.admitted,
    });
  }
  const coarse = await coarseHits(deps.store, deps.policy, searched, coarseLimit);
  const found = {
    ...base,
    mode,
    ...(fallback ? { fallback } : {}),
    ...(below ? { lexicalFallback: below.fallback } : {}),
  };
  const explained = (result: SearchResult) => (options.explain ? explainTerms(searched, result) : result);
  if (!stage || coarse.length === 0) return explained({ ...found, hits: coarse.slice(0, limit) });

  const { hits, trace } = await stage.run(query, coarse, limit, {
    coarseMs: performance.now() - began,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(deps.observer ? { observer: deps.observer } : {}),
    logger: deps.logger,
  });
  return explained({ ...found, ...multiScope('reranked'), hits, trace });
}

/**
 * The coarse hits in fused order. One scope: its fused list, read as hits, then the policy's authority
 * step (RFC 0014). Several: without authority weights, the scopes' fused lists fused again by RRF and
 * only the kept candidates read, each from its own scope; with them, each scope's list is read whole
 * and ordered by the authority step first, then the scopes are fused by those orders.
 */
async function coarseHits(
  store: MemoryStore,
  policy: RetrievalPolicy,
  searched: readonly ScopeCoarse[],
  coarseLimit: number,
): Promise<MemoryHit[]> {
  if (searched.length === 1) {
    return applyAuthority(policy, (await readHits(store, searched))[0]!, coarseLimit);
  }
  if (policy.authority) {
    const lists = (await readHits(store, searched)).map((hits) => applyAuthority(policy, hits, coarseLimit));
    return fuseScopes(lists, coarseLimit).map(({ item, rank, score }) => ({
      ...item,
      score,
      scopeRank: rank,
    }));
  }
  const fused = fuseScopes(
    searched.map((scope) => scope.kept),
    coarseLimit,
  );
  const read = await readHits(
    store,
    searched.map((scope, list) => ({
      head: scope.head,
      kept: fused.filter((candidate) => candidate.list === list).map((candidate) => candidate.item),
    })),
  );
  const byIdentity = new Map(
    read.flat().map((hit) => [identityOf(hit.citation.scopeId, hit.citation.entryVersionId), hit]),
  );
  return fused.flatMap(({ item, list, rank, score }) => {
    const hit = byIdentity.get(identityOf(searched[list]!.head.scopeId, item.entryVersionId));
    return hit ? [{ ...hit, score, scopeRank: rank }] : [];
  });
}

/** An entry version's identity across scopes: ids are unique within a scope only as far as we rely. */
function identityOf(scopeId: string, entryVersionId: string): string {
  return `${scopeId}\u0000${entryVersionId}`;
}

/**
 * The returned hits with the sources of their lexical match, read at each scope's revision by the
 * channel that explains terms (the lexical channel, RFC 0007, "Explain"). A hit that channel did not
 * find (a vector-only hit) gets empty lists: none of the query terms is in its projection. Nothing is
 * added when the search had no such channel (mode vector).
 */
async function explainTerms(searched: readonly ScopeCoarse[], result: SearchResult): Promise<SearchResult> {
  const explainer = searched[0]?.running.find((channel) => channel.explainTerms);
  if (!explainer) return result;
  const reports = await Promise.all(
    searched
      .filter(
        (scope, index) =>
          index === 0 || result.hits.some((hit) => hit.citation.scopeId === scope.head.scopeId),
      )
      .map(async (scope) => ({
        scopeId: scope.head.scopeId,
        report: await explainer.explainTerms!(
          scope.query,
          result.hits
            .filter((hit) => hit.citation.scopeId === scope.head.scopeId)
            .map((hit) => hit.citation.entryVersionId),
        ),
      })),
  );
  const matches = new Map<string, LexicalMatchSources>();
  for (const { scopeId, report } of reports) {
    for (const [entryVersionId, match] of report.matches)
      matches.set(identityOf(scopeId, entryVersionId), match);
  }
  return {
    ...result,
    lexicalQueryTerms: reports[0]!.report.queryTerms,
    hits: result.hits.map((hit) => ({
      ...hit,
      lexicalMatch: matches.get(identityOf(hit.citation.scopeId, hit.citation.entryVersionId)) ?? {
        ownTerms: [],
        contextTerms: [],
      },
    })),
  };
}

/** Each scope's head, in one read of the store when it can read several (`heads`). */
async function readHeads(store: MemoryStore, scopeIds: readonly string[]) {
  const memories =
    scopeIds.length > 1 && store.heads
      ? await store.heads(scopeIds)
      : await Promise.all(scopeIds.map((scopeId) => store.head(scopeId)));
  return memories.map((memory) => (memory ? { memory, vectorIndex: undefined } : undefined));
}

/** Each scope's head and vector index state there, in one read when the store can (`searchHeads`). */
async function readSearchHeads(store: MemoryStore, scopeIds: readonly string[], profileId: string) {
  if (scopeIds.length > 1 && store.searchHeads) return store.searchHeads(scopeIds, profileId);
  return Promise.all(scopeIds.map((scopeId) => readSearchHead(store, scopeId, profileId)));
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
