// The inspector's only door to the server: the public HTTP v1 API, called with the user's key from
// the tab's session storage (never a URL, never a cookie, never logged).

const KEY_ITEM = 'powercontext.inspector.key';

export function storedKey(): string | undefined {
  return sessionStorage.getItem(KEY_ITEM) ?? undefined;
}

export function storeKey(key: string): void {
  sessionStorage.setItem(KEY_ITEM, key);
}

export function clearKey(): void {
  sessionStorage.removeItem(KEY_ITEM);
}

/** A refused or failed call, as the API's error body says it. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryable: boolean,
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(message);
    this.name = 'ApiFailure';
  }
}

interface ErrorBody {
  error?: { code?: unknown; message?: unknown; retryable?: unknown };
}

async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown, write = false): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const key = storedKey();
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  // A write carries a fresh Idempotency-Key: if its answer is lost, the server never applies it twice.
  if (write) headers['idempotency-key'] = crypto.randomUUID();
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: 'omit',
      cache: 'no-store',
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new ApiFailure(0, 'network_error', 'The server did not answer (is it running?)', true, undefined);
  }
  const parsed = (await response.json().catch(() => undefined)) as unknown;
  if (!response.ok) {
    const error = (parsed as ErrorBody | undefined)?.error;
    const retryAfter = Number(response.headers.get('retry-after'));
    throw new ApiFailure(
      response.status,
      typeof error?.code === 'string' ? error.code : 'http_error',
      typeof error?.message === 'string' ? error.message : `HTTP ${response.status}`,
      error?.retryable === true,
      Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
    );
  }
  return parsed as T;
}

// --- the shapes the v1 API answers (openapi/powercontext.yaml), as far as the inspector reads them ---

export interface ArtifactRef {
  artifact_id: string;
  scope_id: string;
  revision: number;
}

export interface EntryVersion {
  entry_id: string;
  entry_version_id: string;
  version: number;
  previous_version_id: string | null;
  kind: string;
  text: string;
  revision: number;
  sources: { source_id: string; locator?: string }[];
  position: { source_id: string; order: number[] } | null;
  metadata: Record<string, unknown>;
  state: 'active' | 'inactive';
  created_at: string;
}

export interface ScopesView {
  any_scope: boolean;
  scopes: string[];
  permissions: ('read' | 'write' | 'explain')[];
}

export interface Capabilities {
  search_modes: string[];
  rerank: { policy_id: string; candidate_limit: number; failure_policy: string } | null;
  explain: 'redacted'[];
}

export interface ScopeSummary {
  memory: ArtifactRef | null;
  entries: { active: number; inactive: number };
}

export interface EntryPage {
  memory: ArtifactRef | null;
  entries: EntryVersion[];
  next_cursor?: string;
}

export interface EntryWrite {
  memory: ArtifactRef;
  entry_id: string;
  entry_version_id: string;
  status: 'created' | 'duplicate' | 'unchanged';
}

/** The search channels the v1 wire names (RFC 0013). */
export type Channel = 'fts' | 'vector' | 'entity' | 'graph';

export interface SearchHit {
  citation: { memory_ref: ArtifactRef; entry_id: string; entry_version_id: string };
  text: string;
  score: number;
  matched_by: Channel[];
}

export interface SearchExplain {
  retrieval_policy_id: string;
  requested_mode: string;
  mode_fallback: { from: string; to: string; reason: string } | null;
  lexical_fallback: { reason: string; query_term_count: number; admitted: number } | null;
  lexical_query_terms: string[] | null;
  rerank: {
    policy_id: string;
    pool_size: number;
    used_fallback: boolean;
    degraded_reason: string | null;
  } | null;
  hits: {
    entry_version_id: string;
    coarse_rank: number;
    channel_ranks: Partial<Record<Channel, number>>;
    rrf_contributions: Partial<Record<Channel, number>> | null;
    reranker_selected: boolean | null;
    lexical: { own_terms: string[]; context_terms: string[] } | null;
  }[];
}

export interface SearchResult {
  memory: ArtifactRef | null;
  mode: string;
  hits: SearchHit[];
  explain?: SearchExplain;
}

export interface Citation {
  memory_ref: ArtifactRef;
  entry_id: string;
  entry_version_id: string;
}

export interface PreparedContext {
  memory: ArtifactRef | null;
  mode: string;
  context: string;
  total_tokens: number;
  frame_tokens: number;
  contract: { token_budget: number; max_chunks: number; per_source_cap: number; tokenizer: string };
  evidence: { kind: string; policy_id: string; model_id: string };
  selected: { ref: number; evidence_rank: number; citation: Citation; source: string; tokens: number }[];
  omitted: {
    ref: number;
    citation: Citation;
    source: string;
    tokens?: number;
    reason: string;
    duplicate_of?: string;
    duplicate_match?: string;
    similarity?: number;
  }[];
}

export interface ChangesPage {
  memory: ArtifactRef | null;
  from_revision: number;
  to_revision: number;
  changes: { revision: number; operation: string; entry: EntryVersion }[];
  next_cursor?: string;
}

export const api = {
  scopes: () => call<ScopesView>('GET', '/v1/scopes'),
  capabilities: () => call<Capabilities>('GET', '/v1/capabilities'),
  summary: (scopeId: string) => call<ScopeSummary>('POST', '/v1/memory/summary', { scope_id: scopeId }),
  list: (body: { scope_id: string; state: string; revision?: number; cursor?: string; limit: number }) =>
    call<EntryPage>('POST', '/v1/memory/entries/list', body),
  get: (body: { scope_id: string; entry_id: string; revision?: number }) =>
    call<{ memory: ArtifactRef; entry: EntryVersion }>('POST', '/v1/memory/entries/get', body),
  forget: (scopeId: string, entryId: string) =>
    call<EntryWrite>('POST', '/v1/memory/entries/forget', { scope_id: scopeId, entry_id: entryId }, true),
  reactivate: (scopeId: string, entryId: string) =>
    call<EntryWrite>('POST', '/v1/memory/entries/reactivate', { scope_id: scopeId, entry_id: entryId }, true),
  revise: (scopeId: string, entryId: string, text: string) =>
    call<EntryWrite>(
      'POST',
      '/v1/memory/entries/revise',
      { scope_id: scopeId, entry_id: entryId, text },
      true,
    ),
  search: (body: { scope_id: string; query: string; mode: string; limit: number; explain?: 'redacted' }) =>
    call<SearchResult>('POST', '/v1/memory/search', body),
  prepare: (body: {
    scope_id: string;
    query: string;
    mode: string;
    limit: number;
    contract: { token_budget: number };
  }) => call<PreparedContext>('POST', '/v1/context/prepare', body),
  changes: (body: {
    scope_id: string;
    from_revision?: number;
    to_revision?: number;
    cursor?: string;
    limit: number;
  }) => call<ChangesPage>('POST', '/v1/memory/changes', body),
};
