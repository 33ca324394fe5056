import {
  type AssemblyCandidate,
  type AssemblyContractInput,
  type AssemblyReport,
  assembleContext,
  bindRerankEvidence,
  checkAssemblyContract,
  parseAssemblyContract,
} from '@powercontext/context-assembly';
import {
  type MemoryHit,
  type MemoryService,
  normalizeQuery,
  type SearchMemoryRequest,
  type SearchOptions,
  type SearchResult,
} from '@powercontext/memory-core';

/** A search request plus the assembly contract to pack its hits under (defaults fill the rest). */
export interface PrepareContextRequest extends SearchMemoryRequest {
  contract?: AssemblyContractInput;
}

/** The search as `search()` returns it (trace included), and the context assembled from it. */
export interface PreparedContext extends SearchResult {
  assembly: AssemblyReport;
}

/** What `assembleContext` needs besides the search result: the query it answered and the contract. */
export interface AssembleSearchRequest {
  /** The query of the search, as given to `search()` (it is normalized the same way). */
  query: string;
  contract?: AssemblyContractInput;
}

/** Model id recorded when the ranking came from no model: coarse order, or a degraded rerank. */
export const NO_MODEL_ID = 'none';
/** Model id recorded when a reranker does not declare its model (an injected one, for instance). */
export const UNDECLARED_MODEL_ID = 'undeclared';

/**
 * Search with the configured reranker, then context assembly over what it ranked:
 *
 * - After a rerank: the candidates are the exact coarse pool of the trace, and the evidence is the
 *   reranker's selection (`selectedRanks` over the pool), under its policy and model ids. Rerankers hand
 *   over ranks only, so selection is the evidence for every policy (a cross-encoder's selection is
 *   already its score order).
 * - Without a rerank (none configured, empty pool) or after a degraded one (fail_open): the candidates
 *   are the returned hits in coarse order, and the evidence is that order under the retrieval policy id,
 *   with model id `none`.
 *
 * The contract is checked before searching (its fields, and a budget that holds the empty frame), so a
 * bad contract costs no search. The per-source cap
 * counts an entry's first `sourceId`; an entry without sources is a source of its own.
 */
export async function prepareContext(
  service: MemoryService,
  scopeIds: string | readonly string[],
  request: PrepareContextRequest,
  options?: SearchOptions,
): Promise<PreparedContext> {
  const { contract: contractInput, ...searchRequest } = request;
  const contract = await checkAssemblyContract(contractInput);
  const result =
    typeof scopeIds === 'string'
      ? await service.search(scopeIds, searchRequest, options)
      : await service.searchScopes(scopeIds, searchRequest, options);
  const assembly = await assembleHits(service, { query: searchRequest.query, contract }, result, options);
  return { ...result, assembly };
}

/**
 * The assembly half of `prepareContext`, for a search result already in hand (an evaluation times the
 * search alone, then assembles). `result` must come from a search with `request.query`; each candidate's
 * memory reference is its hit's own scope and revision, so a search of several scopes assembles alike.
 */
export async function assembleSearchResult(
  service: MemoryService,
  _scopeId: string,
  request: AssembleSearchRequest,
  result: SearchResult,
  options: SearchOptions = {},
): Promise<AssemblyReport> {
  return assembleHits(service, request, result, options);
}

async function assembleHits(
  service: MemoryService,
  request: AssembleSearchRequest,
  result: SearchResult,
  options: SearchOptions = {},
): Promise<AssemblyReport> {
  const contract = parseAssemblyContract(request.contract);
  const query = normalizeQuery(request.query);
  const trace = result.trace;
  const reranked = trace !== undefined && trace.degraded === undefined;
  const pool = reranked ? trace.candidates : result.hits;
  const candidates = pool.map(candidateOf);
  const policyId = reranked ? trace.policyId : service.retrievalPolicy.id;
  const modelId = reranked ? (trace.modelId ?? UNDECLARED_MODEL_ID) : NO_MODEL_ID;
  const ranks = reranked ? trace.selectedRanks : pool.map((_, index) => index + 1);
  const evidence = bindRerankEvidence({
    query,
    candidates,
    policyId,
    modelId,
    selection: { ranks, candidateCount: candidates.length },
  });
  return assembleContext(
    { query, candidates, evidence, contract, expect: { policyId } },
    options.signal ? { signal: options.signal } : {},
  );
}

function candidateOf(hit: MemoryHit): AssemblyCandidate {
  const { scopeId, artifactId, revision } = hit.citation;
  return {
    memoryRef: { artifactId, scopeId, revision },
    entryId: hit.citation.entryId,
    entryVersionId: hit.citation.entryVersionId,
    source: hit.entry.sources[0]?.sourceId ?? `entry:${hit.citation.entryId}`,
    text: hit.text,
  };
}
