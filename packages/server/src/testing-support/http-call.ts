import type { z } from '@hono/zod-openapi';
import type { errorResponseSchema } from '../http/schemas/common-schemas.js';

export interface CallOptions {
  /** Sent as `Authorization: Bearer <key>`. */
  key?: string;
  headers?: Record<string, string>;
  /** Sent as the body instead of JSON.stringify(body). */
  raw?: string;
}

export interface CallResult<T> {
  status: number;
  text: string;
  json: T;
  headers: Headers;
}

export type ErrorBody = z.infer<typeof errorResponseSchema>;

/** POSTs `body` as JSON (GETs without one); `json` is the parsed answer, typed by the caller. */
export type Call = <T = ErrorBody>(
  path: string,
  body?: unknown,
  options?: CallOptions,
) => Promise<CallResult<T>>;

/** A `Call` over any fetch-like function: Hono's app.request in process, fetch against a real server. */
export function createCall(send: (path: string, init: RequestInit) => Promise<Response>): Call {
  return async <T>(path: string, body?: unknown, options: CallOptions = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
    const init: RequestInit =
      body === undefined && options.raw === undefined
        ? { method: 'GET', headers }
        : {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...headers },
            body: options.raw ?? JSON.stringify(body),
          };
    const response = await send(path, init);
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, text, json: json as T, headers: response.headers };
  };
}
