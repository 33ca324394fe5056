import { PowerContextApiError } from './api-error.js';
import type {
  CapabilitiesResponse,
  ChangesRequest,
  ChangesResponse,
  DeleteScopeRequest,
  DeleteScopeResponse,
  EntryTargetRequest,
  EntryWriteResponse,
  ErrorResponse,
  ExportedEntry,
  ExportRequest,
  GetEntryRequest,
  GetEntryResponse,
  HealthResponse,
  ListEntriesRequest,
  ListEntriesResponse,
  PrepareContextRequest,
  PrepareContextResponse,
  PurgeResponse,
  ReadyResponse,
  RememberRequest,
  RememberResponse,
  ReviseRequest,
  ScopeSummaryRequest,
  ScopeSummaryResponse,
  SearchRequest,
  SearchResponse,
} from './api-types.js';

export interface PowerContextClientOptions {
  /** Where the server listens, e.g. `http://127.0.0.1:7474`. */
  baseUrl: string | URL;
  /** Sent as `Authorization: Bearer <apiKey>`; omit for a server without keys on loopback. */
  apiKey?: string;
  /** The fetch to use; default the global one (Node 20+). */
  fetch?: typeof fetch;
  /** Extra headers for every call. */
  headers?: Record<string, string>;
}

export interface CallOptions {
  /** Cancels the call, e.g. `AbortSignal.timeout(10_000)`; the call then rejects with the abort reason. */
  signal?: AbortSignal;
  /** Sent as x-request-id (1-128 of A-Z a-z 0-9 . _ : -); the server logs it and echoes it. */
  requestId?: string;
}

/** Options of the write calls (remember, revise, forget, reactivate). */
export interface WriteCallOptions extends CallOptions {
  /**
   * Sent as `Idempotency-Key` (1-255 visible ASCII characters; a fresh UUID per logical write is a
   * good key). Repeating the call with the same key and body, within the server's retention time (24
   * hours by default), answers the first result and writes nothing, so a write that failed with a
   * retryable error (`network_error`, `write_outcome_unknown`, `request_timeout`, ...) can be repeated
   * safely and tells what happened. The same key with another body fails with
   * `idempotency_key_reused` (422).
   */
  idempotencyKey?: string;
}

/** The HTTP v1 API, one method per route. Every failure rejects with a PowerContextApiError. */
export interface PowerContextClient {
  /** POST /v1/memory/search. Idempotent: a retryable failure may simply be retried. */
  search(request: SearchRequest, options?: CallOptions): Promise<SearchResponse>;
  /** POST /v1/memory/remember: one new revision; an entry equal to an active one comes back as a duplicate. */
  remember(request: RememberRequest, options?: WriteCallOptions): Promise<RememberResponse>;
  /** POST /v1/memory/entries/list: one page of entries at one revision. */
  listEntries(request: ListEntriesRequest, options?: CallOptions): Promise<ListEntriesResponse>;
  /** POST /v1/memory/entries/get: one entry at the head or a given revision. */
  getEntry(request: GetEntryRequest, options?: CallOptions): Promise<GetEntryResponse>;
  /** POST /v1/memory/entries/revise: a new version of the entry's text. */
  reviseEntry(request: ReviseRequest, options?: WriteCallOptions): Promise<EntryWriteResponse>;
  /**
   * POST /v1/memory/entries/forget: the entry becomes inactive; search no longer returns it. Its text
   * stays in history (readable at earlier revisions, and `reactivateEntry` brings it back).
   */
  forgetEntry(request: EntryTargetRequest, options?: WriteCallOptions): Promise<EntryWriteResponse>;
  /** POST /v1/memory/entries/reactivate: a forgotten entry becomes active again. */
  reactivateEntry(request: EntryTargetRequest, options?: WriteCallOptions): Promise<EntryWriteResponse>;
  /**
   * POST /v1/memory/entries/purge: erases every version of the entry for good, keeping a tombstone;
   * reads of it then answer `entry_purged` (410). Needs the key's `purge` permission.
   */
  purgeEntry(request: EntryTargetRequest, options?: WriteCallOptions): Promise<PurgeResponse>;
  /**
   * POST /v1/scopes/delete: erases every entry of the scope for good, keeping a tombstone; every read
   * and write of the scope then answers `scope_purged` (410). Needs the key's `purge` permission.
   */
  deleteScope(request: DeleteScopeRequest, options?: CallOptions): Promise<DeleteScopeResponse>;
  /**
   * GET /v1/memory/export: the scope's active entries at a revision (default the head), one at a time
   * as the response streams, each in the shape `remember` (and `powercontext memory import`) takes.
   * Errors before the first entry reject the first `next()` with a PowerContextApiError.
   */
  exportEntries(request: ExportRequest, options?: CallOptions): AsyncGenerator<ExportedEntry>;
  /** POST /v1/memory/changes: entry versions written between two revisions, oldest first. */
  changes(request: ChangesRequest, options?: CallOptions): Promise<ChangesResponse>;
  /**
   * POST /v1/context/prepare: search, then pack the evidence under the assembly contract. Answers the
   * framed `context` (the only place retrieved text appears), each chunk's citation and every omission.
   */
  prepareContext(request: PrepareContextRequest, options?: CallOptions): Promise<PrepareContextResponse>;
  /** POST /v1/memory/summary: the scope's head revision and its entries by state (counted at the head). */
  scopeSummary(request: ScopeSummaryRequest, options?: CallOptions): Promise<ScopeSummaryResponse>;
  /** GET /v1/capabilities: search modes, embedding profile, rerank policy in use. */
  capabilities(options?: CallOptions): Promise<CapabilitiesResponse>;
  /** GET /healthz: the process answers. */
  health(options?: CallOptions): Promise<HealthResponse>;
  /**
   * GET /readyz: ready for requests, with the database's state and each read replica's lag when the
   * client has a valid key (or the server has no keys; without one, `{ status: 'ready' }` alone);
   * rejects with not_ready (503) while starting or stopping, database_unavailable (503) when the
   * database does not answer (not_ready without a valid key).
   */
  ready(options?: CallOptions): Promise<ReadyResponse>;
}

/** A thin typed wrapper around fetch for the HTTP v1 API. */
export function createPowerContextClient(options: PowerContextClientOptions): PowerContextClient {
  const base = new URL(options.baseUrl);
  if (!base.pathname.endsWith('/')) base.pathname = `${base.pathname}/`;
  const fetchImpl = options.fetch ?? globalThis.fetch;

  /** Sends one request; a call that gets no answer rejects with `network_error`. */
  async function send(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    callOptions: WriteCallOptions,
  ): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    if (options.apiKey !== undefined) headers.authorization = `Bearer ${options.apiKey}`;
    if (callOptions.requestId !== undefined) headers['x-request-id'] = callOptions.requestId;
    if (callOptions.idempotencyKey !== undefined) headers['idempotency-key'] = callOptions.idempotencyKey;
    if (body !== undefined) headers['content-type'] = 'application/json';
    try {
      return await fetchImpl(new URL(path, base), {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        ...(callOptions.signal ? { signal: callOptions.signal } : {}),
      });
    } catch (error) {
      if (callOptions.signal?.aborted) throw callOptions.signal.reason;
      // The memory operations are idempotent by content (a repeated remember reports duplicates, a
      // repeated revise or forget reports unchanged), so a call without an answer may be repeated;
      // with an idempotency key, the repeat of a write answers its first result.
      throw new PowerContextApiError('network_error', `No answer from ${base.origin}: ${errorText(error)}`, {
        status: 0,
        retryable: true,
        cause: error,
      });
    }
  }

  /** The error an answer that is not a success stands for. */
  async function failure(response: Response, path: string): Promise<never> {
    const requestId = response.headers.get('x-request-id') ?? undefined;
    const error = errorBody(await readJson(response));
    if (!error) throw invalidResponse(response, path, requestId);
    throw new PowerContextApiError(error.code, error.message, {
      status: response.status,
      retryable: error.retryable,
      details: error.details,
      retryAfterSeconds: retryAfter(response.headers.get('retry-after')),
      requestId,
    });
  }

  async function call<Result>(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    callOptions: WriteCallOptions = {},
  ): Promise<Result> {
    const response = await send(method, path, body, callOptions);
    if (!response.ok) return failure(response, path);
    const payload = await readJson(response);
    if (payload === undefined)
      throw invalidResponse(response, path, response.headers.get('x-request-id') ?? undefined);
    return payload as Result;
  }

  async function* exportEntries(request: ExportRequest, callOptions: CallOptions = {}) {
    const query = new URLSearchParams({ scope_id: request.scope_id });
    if (request.revision !== undefined) query.set('revision', String(request.revision));
    const response = await send('GET', `v1/memory/export?${query}`, undefined, callOptions);
    if (!response.ok || !response.body) await failure(response, 'v1/memory/export');
    const decoder = new TextDecoder();
    let pending = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      pending += decoder.decode(chunk, { stream: true });
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line !== '') yield JSON.parse(line) as ExportedEntry;
    }
    if (pending.trim() !== '') yield JSON.parse(pending) as ExportedEntry;
  }

  return {
    exportEntries,
    deleteScope: (request, callOptions) => call('POST', 'v1/scopes/delete', request, callOptions),
    search: (request, callOptions) => call('POST', 'v1/memory/search', request, callOptions),
    remember: (request, callOptions) => call('POST', 'v1/memory/remember', request, callOptions),
    listEntries: (request, callOptions) => call('POST', 'v1/memory/entries/list', request, callOptions),
    getEntry: (request, callOptions) => call('POST', 'v1/memory/entries/get', request, callOptions),
    reviseEntry: (request, callOptions) => call('POST', 'v1/memory/entries/revise', request, callOptions),
    forgetEntry: (request, callOptions) => call('POST', 'v1/memory/entries/forget', request, callOptions),
    reactivateEntry: (request, callOptions) =>
      call('POST', 'v1/memory/entries/reactivate', request, callOptions),
    purgeEntry: (request, callOptions) => call('POST', 'v1/memory/entries/purge', request, callOptions),
    changes: (request, callOptions) => call('POST', 'v1/memory/changes', request, callOptions),
    prepareContext: (request, callOptions) => call('POST', 'v1/context/prepare', request, callOptions),
    scopeSummary: (request, callOptions) => call('POST', 'v1/memory/summary', request, callOptions),
    capabilities: (callOptions) => call('GET', 'v1/capabilities', undefined, callOptions),
    health: (callOptions) => call('GET', 'healthz', undefined, callOptions),
    ready: (callOptions) => call('GET', 'readyz', undefined, callOptions),
  };
}

async function readJson(response: Response): Promise<unknown> {
  if (!(response.headers.get('content-type') ?? '').includes('application/json')) {
    await response.body?.cancel();
    return undefined;
  }
  try {
    return await response.json();
  } catch {
    return undefined;
  }
}

/** The `error` of an API error body, or undefined when the payload is not one. */
function errorBody(payload: unknown): ErrorResponse['error'] | undefined {
  const error = (payload as Partial<ErrorResponse> | undefined)?.error;
  if (typeof error !== 'object' || error === null) return undefined;
  if (typeof error.code !== 'string' || typeof error.message !== 'string') return undefined;
  return { ...error, retryable: error.retryable === true };
}

function invalidResponse(
  response: Response,
  path: string,
  requestId: string | undefined,
): PowerContextApiError {
  return new PowerContextApiError(
    'invalid_response',
    `Unexpected ${response.status} answer to /${path}: not the API's JSON`,
    {
      status: response.status,
      retryable: response.status === 429 || response.status >= 500,
      retryAfterSeconds: retryAfter(response.headers.get('retry-after')),
      requestId,
    },
  );
}

/** Retry-After as seconds: a number of seconds, or an HTTP date (rounded up, never negative). */
export function retryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${error.message}${cause}`;
}
