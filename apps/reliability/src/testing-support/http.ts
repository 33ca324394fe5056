import { request as httpRequest } from 'node:http';
import type { ServerErrorCode } from '@powercontext/client';

/** Every error code of HTTP v1 and its status (RFC 0005). Typed against the generated OpenAPI enum. */
export const ERROR_STATUS: Record<ServerErrorCode, number> = {
  malformed_request: 400,
  invalid_request: 422,
  invalid_citation: 422,
  idempotency_key_reused: 422,
  unauthenticated: 401,
  scope_forbidden: 403,
  permission_forbidden: 403,
  host_forbidden: 403,
  origin_forbidden: 403,
  not_found: 404,
  entry_purged: 410,
  scope_purged: 410,
  method_not_allowed: 405,
  revision_conflict: 409,
  revision_not_visible: 409,
  capability_unavailable: 409,
  payload_too_large: 413,
  rate_limited: 429,
  internal_error: 500,
  configuration_error: 500,
  store_incompatible: 500,
  rerank_out_of_bounds: 500,
  reranker_defect: 500,
  inference_invalid_output: 502,
  inference_timeout: 503,
  inference_unavailable: 503,
  embedding_failed: 503,
  rerank_failure: 503,
  rerank_deadline: 503,
  rerank_saturated: 503,
  not_ready: 503,
  database_unavailable: 503,
  request_timeout: 503,
  write_outcome_unknown: 504,
};

export interface HttpResult<T = unknown> {
  /** HTTP status; 0 when no answer arrived (see `transportError`). */
  status: number;
  text: string;
  json: T;
  headers: Headers;
  ms: number;
  /** The error code of an error body, `transport:<reason>` without an answer, undefined on success. */
  errorKind: string | undefined;
  transportError?: string;
}

export interface SendOptions {
  /** POSTs this value as JSON; GET without body, raw or bytes. */
  body?: unknown;
  /** Sent as the body as is (with content-type application/json unless headers say otherwise). */
  raw?: string | Uint8Array;
  key?: string;
  headers?: Record<string, string>;
  method?: string;
  /** The client gives up after this long (a hang shows as `transport:timeout`). Default 30 s. */
  timeoutMs?: number;
}

export interface ErrorBody {
  error: { code: string; message: string; retryable: boolean; details?: Record<string, unknown> };
}

/** One HTTP call that never throws: status, parsed body, timing and the kind of error, if any. */
export async function send<T = unknown>(
  baseUrl: string,
  path: string,
  options: SendOptions = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  const hasBody = options.body !== undefined || options.raw !== undefined;
  if (hasBody && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
    headers['content-type'] = 'application/json';
  }
  const began = performance.now();
  try {
    const response = await fetch(`${baseUrl}${path}`, {
      method: options.method ?? (hasBody ? 'POST' : 'GET'),
      headers,
      ...(hasBody ? { body: options.raw ?? JSON.stringify(options.body) } : {}),
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
    });
    const text = await response.text();
    const ms = performance.now() - began;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const code = (json as Partial<ErrorBody> | undefined)?.error?.code;
    const errorKind =
      response.status >= 400 ? (typeof code === 'string' ? code : `http_${response.status}`) : undefined;
    return { status: response.status, text, json: json as T, headers: response.headers, ms, errorKind };
  } catch (error) {
    const reason =
      (error as Error).name === 'TimeoutError'
        ? 'timeout'
        : ((error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name);
    return {
      status: 0,
      text: '',
      json: undefined as T,
      headers: new Headers(),
      ms: performance.now() - began,
      errorKind: `transport:${reason}`,
      transportError: String(error),
    };
  }
}

/** The error code of an error answer; a JSON-RPC error (MCP transport) as `jsonrpc_<code>`. */
function kindOf(status: number, json: unknown): string | undefined {
  if (status < 400) return undefined;
  const code = (json as { error?: { code?: unknown } } | undefined)?.error?.code;
  if (typeof code === 'string') return code;
  if (typeof code === 'number') return `jsonrpc_${code}`;
  return `http_${status}`;
}

/** Checks `json` is `{ error: { code, message, retryable, details? } }` with the code's status. */
export function errorShapeProblem(status: number, json: unknown): string | undefined {
  const error = (json as Partial<ErrorBody> | undefined)?.error;
  if (typeof json !== 'object' || json === null || Object.keys(json).join() !== 'error' || !error) {
    return `status ${status} without the error body: ${JSON.stringify(json)?.slice(0, 200)}`;
  }
  const keys = Object.keys(error).sort();
  const allowed = ['code', 'details', 'message', 'retryable'];
  if (!keys.every((key) => allowed.includes(key))) return `unexpected error fields ${keys.join()}`;
  if (typeof error.message !== 'string' || typeof error.retryable !== 'boolean') {
    return `error message or retryable missing: ${JSON.stringify(error)}`;
  }
  const expected = ERROR_STATUS[error.code as ServerErrorCode];
  if (expected === undefined) return `unknown error code ${error.code}`;
  // capability_unavailable is 409 for a missing index and 503 for a failed query embedding.
  const statusOk = expected === status || (error.code === 'capability_unavailable' && status === 503);
  if (!statusOk) return `code ${error.code} with status ${status}, documented ${expected}`;
  return undefined;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * POSTs raw bytes over a fresh connection with node:http (no keep-alive, so a request the server cuts
 * short cannot spoil the next one). Keeps an answer that arrived before the connection broke: a
 * server may answer 413 and close while a large body is still being sent.
 */
export function sendRaw(
  baseUrl: string,
  path: string,
  body: string | Uint8Array,
  headers: Record<string, string>,
  timeoutMs = 30_000,
): Promise<HttpResult> {
  const began = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<HttpResult, 'ms'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...result, ms: performance.now() - began });
    };
    const failed = (reason: string, error: unknown) =>
      finish({
        status: 0,
        text: '',
        json: undefined,
        headers: new Headers(),
        errorKind: `transport:${reason}`,
        transportError: String(error),
      });
    const request = httpRequest(`${baseUrl}${path}`, {
      method: 'POST',
      headers,
      agent: false,
      timeout: timeoutMs,
    });
    request.on('timeout', () => {
      request.destroy();
      failed('timeout', new Error(`no answer within ${timeoutMs} ms`));
    });
    request.on('error', (error: NodeJS.ErrnoException) => failed(error.code ?? error.name, error));
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      const done = () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        const status = response.statusCode ?? 0;
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          if (typeof value === 'string') responseHeaders.set(name, value);
        }
        finish({
          status,
          text,
          json,
          headers: responseHeaders,
          errorKind: kindOf(status, json),
        });
      };
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', done);
      response.on('error', done);
    });
    request.end(body);
  });
}
