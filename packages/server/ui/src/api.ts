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

/**
 * Whether the server asks for a key (GET /ui/session.json, served with the page). Unknown (an older
 * server, a failed call) counts as "no": the API's answer then decides, as before.
 */
export async function keysRequired(): Promise<boolean> {
  try {
    const response = await fetch('session.json', { credentials: 'omit', cache: 'no-store' });
    if (!response.ok) return false;
    return ((await response.json()) as { keys_required?: unknown }).keys_required === true;
  } catch {
    return false;
  }
}

/** One rule a request broke, as a 422 names it: the field's path and the rule in words. */
export interface FieldIssue {
  field: string;
  rule: string;
}

/** A refused or failed call, as the API's error body says it. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryable: boolean,
    readonly retryAfterSeconds: number | undefined,
    /** The error body's `details` (a 410's tombstone, a 422's field issues), when it has any. */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiFailure';
  }

  /** With a 422 `invalid_request`: every field and rule the server refused. */
  get issues(): FieldIssue[] {
    const issues = this.details.issues;
    if (!Array.isArray(issues)) return [];
    return issues.filter(
      (issue): issue is FieldIssue =>
        typeof issue === 'object' &&
        issue !== null &&
        typeof (issue as FieldIssue).field === 'string' &&
        typeof (issue as FieldIssue).rule === 'string',
    );
  }
}

interface ErrorBody {
  error?: { code?: unknown; message?: unknown; retryable?: unknown; details?: unknown };
}

/** Sends one request with the key; a request that gets no answer is an ApiFailure with status 0. */
async function send(
  method: 'GET' | 'POST',
  path: string,
  accept: string,
  body?: unknown,
  write = false,
): Promise<Response> {
  const headers: Record<string, string> = { accept };
  const key = storedKey();
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  // A write carries a fresh Idempotency-Key: if its answer is lost, the server never applies it twice.
  if (write) headers['idempotency-key'] = crypto.randomUUID();
  try {
    return await fetch(path, {
      method,
      headers,
      credentials: 'omit',
      cache: 'no-store',
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new ApiFailure(0, 'network_error', 'The server did not answer (is it running?)', true, undefined);
  }
}

/** A refused answer as an ApiFailure, from its error body. */
function failureOf(response: Response, parsed: unknown): ApiFailure {
  const error = (parsed as ErrorBody | undefined)?.error;
  const retryAfter = Number(response.headers.get('retry-after'));
  const details = error?.details;
  return new ApiFailure(
    response.status,
    typeof error?.code === 'string' ? error.code : 'http_error',
    typeof error?.message === 'string' ? error.message : `HTTP ${response.status}`,
    error?.retryable === true,
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
    details !== null && typeof details === 'object' ? (details as Record<string, unknown>) : {},
  );
}

async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown, write = false): Promise<T> {
  const response = await send(method, path, 'application/json', body, write);
  const parsed = (await response.json().catch(() => undefined)) as unknown;
  if (!response.ok) throw failureOf(response, parsed);
  return parsed as T;
}

/** A scope's export (RFC 0015): the whole NDJSON body, and the revision it was read at. */
async function exportScope(scopeId: string): Promise<{ body: Blob; revision: number }> {
  const response = await send(
    'GET',
    `/v1/memory/export?scope_id=${encodeURIComponent(scopeId)}`,
    'application/x-ndjson, application/json',
  );
  if (!response.ok) throw failureOf(response, await response.json().catch(() => undefined));
  let body: Blob;
  try {
    body = await response.blob();
  } catch {
    // The server ends the stream early when a page fails part way: no partial file is offered.
    throw new ApiFailure(0, 'export_incomplete', 'The export stopped part way; try again', true, undefined);
  }
  return { body, revision: Number(response.headers.get('memory-revision') ?? 0) };
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
  tags: string[];
  pinned: boolean;
  occurred_at: string | null;
  state: 'active' | 'inactive';
  created_at: string;
  written_at: string;
}

/** Which entries a list, a search or a prepared context keeps (RFC 0014): every condition given holds. */
export interface EntryFilter {
  kinds?: string[];
  tags_all?: string[];
  tags_any?: string[];
  source_ids?: string[];
  pinned?: boolean;
  occurred_after?: string;
  occurred_before?: string;
  written_after?: string;
  written_before?: string;
}

export type ListOrder = 'newest' | 'oldest' | 'entry_id';

export type Permission = 'read' | 'write' | 'explain' | 'purge';

export interface ScopesView {
  any_scope: boolean;
  scopes: string[];
  permissions: Permission[];
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
  /** How many entries at the revision the state, filter and text keep (every page). */
  total: number;
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
  kind: string;
  tags: string[];
  pinned: boolean;
  occurred_at: string | null;
  sources: { source_id: string; locator?: string }[];
  /** The revision whose write created the cited version. */
  revision: number;
  written_at: string;
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

/** When a purge erased an entry; who purged only for a key with the purge permission. */
export interface PurgeInfo {
  revision: number;
  purged_at: string;
  purged_by?: string | null;
}

/** A change whose version a later purge erased, or the purge itself: ids and revisions only. */
export interface PurgedChange {
  revision: number;
  operation: string;
  purged: true;
  entry_id: string;
  entry_version_id: string;
  version: number;
  purge: PurgeInfo;
}

export interface ChangesPage {
  memory: ArtifactRef | null;
  from_revision: number;
  to_revision: number;
  changes: (
    | { revision: number; operation: string; entry: EntryVersion; purged?: undefined }
    | PurgedChange
  )[];
  next_cursor?: string;
}

export interface PurgeResult {
  memory: ArtifactRef;
  status: 'purged' | 'unchanged';
  tombstone: {
    entry_id: string;
    revision: number;
    purged_at: string;
    purged_by: string | null;
    versions: { version: number; revision: number; operation: string; state: 'active' | 'inactive' }[];
  };
}

/** What is left of a deleted scope (RFC 0015). */
export interface ScopeTombstone {
  scope_id: string;
  revision: number;
  entries: number;
  deleted_at: string;
  deleted_by?: string | null;
}

export const api = {
  scopes: () => call<ScopesView>('GET', '/v1/scopes'),
  capabilities: () => call<Capabilities>('GET', '/v1/capabilities'),
  summary: (scopeId: string) => call<ScopeSummary>('POST', '/v1/memory/summary', { scope_id: scopeId }),
  list: (body: {
    scope_id: string;
    state: string;
    revision?: number;
    cursor?: string;
    limit: number;
    order: ListOrder;
    filter?: EntryFilter;
    text?: string;
  }) => call<EntryPage>('POST', '/v1/memory/entries/list', body),
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
  search: (body: {
    scope_id: string;
    query: string;
    mode: string;
    limit: number;
    explain?: 'redacted';
    filter?: EntryFilter;
  }) => call<SearchResult>('POST', '/v1/memory/search', body),
  prepare: (body: {
    scope_id: string;
    query: string;
    mode: string;
    limit: number;
    contract: { token_budget: number };
    filter?: EntryFilter;
  }) => call<PreparedContext>('POST', '/v1/context/prepare', body),
  purge: (scopeId: string, entryId: string) =>
    call<PurgeResult>('POST', '/v1/memory/entries/purge', { scope_id: scopeId, entry_id: entryId }, true),
  deleteScope: (scopeId: string) =>
    call<{ status: 'deleted' | 'unchanged'; tombstone: ScopeTombstone }>('POST', '/v1/scopes/delete', {
      scope_id: scopeId,
    }),
  exportScope,
  changes: (body: {
    scope_id: string;
    from_revision?: number;
    to_revision?: number;
    cursor?: string;
    limit: number;
  }) => call<ChangesPage>('POST', '/v1/memory/changes', body),
};
