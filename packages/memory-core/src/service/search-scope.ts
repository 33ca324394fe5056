import type { EntryFilter } from '../domain/entry-filter.js';
import type { MemoryRef } from '../domain/memory-ref.js';
import type {
  ChannelCandidate,
  ChannelName,
  FusedCandidate,
  LexicalAdmissionFallback,
  MemoryHit,
  SearchMode,
} from '../domain/search.js';
import { ValidationError } from '../errors/validation-error.js';
import type { EmbeddingProfile } from '../ports/embedder.port.js';
import type { MemoryStore } from '../ports/memory-store.port.js';
import type { RetrievalPolicy } from '../ports/retrieval-policy.port.js';
import type { ScopeAtRevision } from '../ports/scopes-reads.port.js';
import type { ChannelQuery, ChannelResult, SearchChannel } from '../ports/search-channel.port.js';
import { fusionPoolLimit } from './authority-step.js';

/** What every scope of one search shares: the query, its vector, the mode and the limits. */
export interface ScopeSearchPlan {
  text: string;
  mode: SearchMode;
  /** How many candidates each channel ranks (the policy's fetch limit). */
  fetchLimit: number;
  /** How many fused candidates the scope keeps. */
  coarseLimit: number;
  embedding?: { profile: EmbeddingProfile; vector: readonly number[] };
  signal?: AbortSignal;
  /** The search's effective filter (RFC 0014), applied by every channel inside its read in every scope. */
  filter?: EntryFilter;
}

/** One scope's coarse path: the channels it ran at its head, what they found, and the fused list. */
export interface ScopeCoarse {
  head: MemoryRef;
  query: ChannelQuery;
  running: SearchChannel[];
  results: ChannelResult[];
  kept: FusedCandidate[];
}

/**
 * RFC 0080 steps 3-5 within each scope at its head revision (RFC 0013): run each channel the mode
 * allows, in parallel, admit each list by the policy by name, fuse, scope by scope. A channel that can
 * (`searchScopes`) is called once for all the scopes; the others once per scope. Either way each scope's
 * lists are those of a search of that scope alone.
 */
export async function searchScopes(
  channels: ReadonlyMap<ChannelName, SearchChannel>,
  policy: RetrievalPolicy,
  heads: readonly MemoryRef[],
  plan: ScopeSearchPlan,
): Promise<ScopeCoarse[]> {
  const shared: Omit<ChannelQuery, 'scopeId' | 'revision'> = {
    text: plan.text,
    limit: plan.fetchLimit,
    ...(plan.embedding ? { embedding: plan.embedding } : {}),
    ...(plan.signal ? { signal: plan.signal } : {}),
    ...(plan.filter ? { filter: plan.filter } : {}),
  };
  const scopes = heads.map(({ scopeId, revision }) => ({ scopeId, revision }));
  const running = [...channels.values()].filter((channel) => runsIn(plan.mode, channel));
  const byChannel = await Promise.all(running.map((channel) => searchChannel(channel, shared, scopes)));
  return heads.map((head, at) => {
    const results = byChannel.map((lists) => lists[at]!);
    const admitted: Partial<Record<ChannelName, ChannelCandidate[]>> = {};
    running.forEach((channel, index) => {
      admitted[channel.name] = policy.admit(channel.name, results[index]!);
    });
    return {
      head,
      query: { ...shared, ...scopes[at]! },
      running,
      results,
      kept: policy.fuse(admitted, fusionPoolLimit(policy, plan.coarseLimit)),
    };
  });
}

/** One channel's results in each scope, in order: one call for several scopes when the channel can. */
async function searchChannel(
  channel: SearchChannel,
  shared: Omit<ChannelQuery, 'scopeId' | 'revision'>,
  scopes: readonly ScopeAtRevision[],
): Promise<ChannelResult[]> {
  if (scopes.length === 1 || !channel.searchScopes) {
    return Promise.all(scopes.map((scope) => channel.search({ ...shared, ...scope })));
  }
  const results = await channel.searchScopes(shared, scopes);
  if (results.length !== scopes.length) {
    throw new Error(
      `the ${channel.name} channel answered ${results.length} results for ${scopes.length} scopes`,
    );
  }
  return results;
}

/**
 * A filtered search refuses to run a channel that cannot apply the filter inside its own read: a filter
 * applied after a channel's top-k would silently return fewer hits (RFC 0014, "Filters").
 */
export function refuseUnfilteredChannels(
  channels: ReadonlyMap<ChannelName, SearchChannel>,
  mode: SearchMode,
  filter: EntryFilter | undefined,
): void {
  if (!filter) return;
  const unfiltered = [...channels.values()].find((channel) => runsIn(mode, channel) && !channel.filters);
  if (unfiltered) {
    throw new ValidationError([
      { field: 'filter', rule: `the ${unfiltered.name} channel cannot apply a filter inside its search` },
    ]);
  }
}

/**
 * The admission rule is a ranking preference, not a reason to answer nothing: when it left no hit in
 * any scope but some entry matches a query term, those matches are the answer (each scope's, fused as
 * its strict list would have been), and the result says so. Undefined when no scope offers any.
 */
export function admitBelowThreshold(
  policy: RetrievalPolicy,
  scopes: ScopeCoarse[],
  coarseLimit: number,
): { scopes: ScopeCoarse[]; fallback: LexicalAdmissionFallback } | undefined {
  if (!policy.admitFallback || scopes.some((scope) => scope.kept.length > 0)) return undefined;
  let queryTermCount: number | undefined;
  const refused = scopes.map((scope) => {
    const lists: Partial<Record<ChannelName, ChannelCandidate[]>> = {};
    scope.running.forEach((channel, index) => {
      const result = scope.results[index]!;
      if (result.candidates.length === 0) return;
      const below = policy.admitFallback!(channel.name, result);
      if (!below) return;
      lists[channel.name] = below;
      queryTermCount ??= result.queryTermCount ?? 0;
    });
    return { ...scope, kept: policy.fuse(lists, fusionPoolLimit(policy, coarseLimit)) };
  });
  const admitted = refused.reduce((sum, scope) => sum + scope.kept.length, 0);
  if (queryTermCount === undefined || admitted === 0) return undefined;
  return {
    scopes: refused,
    fallback: { reason: 'no_candidate_met_term_threshold', queryTermCount, admitted },
  };
}

/**
 * The fused candidates of each scope as hits, in fused order: one read of their entry versions
 * (immutable, so the revision the channels searched needs no re-check), for all the scopes at once when
 * the store can (`entryVersionsOfScopes`). Channels return identities only, so text crosses from the
 * store for the kept candidates alone. A version missing from the read was purged after the channels
 * read it; it is left out rather than cited.
 */
export async function readHits(
  store: MemoryStore,
  lists: readonly { head: MemoryRef; kept: readonly FusedCandidate[] }[],
): Promise<MemoryHit[][]> {
  const reads = lists.map(({ head, kept }) => ({
    scopeId: head.scopeId,
    entryVersionIds: kept.map((candidate) => candidate.entryVersionId),
  }));
  const asked = reads.filter((read) => read.entryVersionIds.length > 0);
  const answers =
    asked.length > 1 && store.entryVersionsOfScopes
      ? await store.entryVersionsOfScopes(asked)
      : await Promise.all(asked.map((read) => store.entryVersions(read.scopeId, read.entryVersionIds)));
  const versions = new Map(asked.map((read, at) => [read, answers[at]!]));
  return lists.map(({ head, kept }, at) => {
    const found = versions.get(reads[at]!);
    if (!found) return [];
    return kept.flatMap(({ entryId, entryVersionId, ...ranking }) => {
      const entry = found.get(entryVersionId);
      if (!entry) return [];
      const { scopeId, artifactId, revision } = head;
      return [
        {
          citation: { scopeId, artifactId, revision, entryId, entryVersionId },
          entry,
          text: entry.text,
          ...ranking,
        },
      ];
    });
  });
}

/**
 * Whether a channel runs in a mode: `fts` runs the text channels, `vector` the embedding channels,
 * `hybrid` all of them.
 */
function runsIn(mode: SearchMode, channel: SearchChannel): boolean {
  return mode === 'hybrid' || (mode === 'fts' ? channel.needs === 'text' : channel.needs === 'embedding');
}
