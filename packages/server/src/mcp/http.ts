import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Runtime } from '@powercontext/runtime';
import type { Principal } from '../auth/principal.js';
import type { StartedWrite } from '../http/app-env.js';
import { createMemoryMcpServer } from './memory-tools.js';

export interface McpHttpContext {
  runtime: Runtime;
  /** The caller, already authenticated by the HTTP layer; every tool checks it for its scope. */
  principal: Principal;
  /** The JSON-RPC body the route already read and checked (batch size); undefined: read it here. */
  parsedBody?: unknown;
  /** Charges a tool call to the caller's key (its rate limit and an in-flight slot). */
  admitToolCall?: () => (() => void) | Promise<() => void>;
  /** Runs search_memory's or prepare_context's work in one of the process's search lanes. */
  inSearchLane?: <T>(signal: AbortSignal, work: () => Promise<T>) => Promise<T>;
  /** Told about failures that are not our typed errors (the caller sees `internal_error`). */
  onInternalError?: (error: unknown, tool: string) => void;
  /** The request's signal: its timeout abandons tool writes that have not begun their transaction. */
  signal?: AbortSignal;
  /** Told when a tool's write begins its transaction. */
  onWriteBegin?: (write: StartedWrite) => void;
}

/**
 * The Streamable HTTP MCP endpoint (mounted at /mcp behind the API key check). Stateless: each POST
 * gets its own server and transport bound to the request's principal, and the answer is one JSON
 * body, so nothing outlives the request. GET (a server-to-client stream) and DELETE (ending a
 * session) have no meaning without sessions and are answered 405.
 */
export async function handleMcpHttp(request: Request, context: McpHttpContext): Promise<Response> {
  if (request.method !== 'POST') {
    return Response.json(
      {
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Method not allowed: this endpoint is stateless, use POST' },
        id: null,
      },
      { status: 405, headers: { Allow: 'POST' } },
    );
  }
  const server = createMemoryMcpServer({
    runtime: context.runtime,
    principal: context.principal,
    ...(context.onInternalError ? { onInternalError: context.onInternalError } : {}),
    ...(context.admitToolCall ? { admitToolCall: context.admitToolCall } : {}),
    ...(context.inSearchLane ? { inSearchLane: context.inSearchLane } : {}),
    ...(context.signal ? { signal: context.signal } : {}),
    ...(context.onWriteBegin ? { onWriteBegin: context.onWriteBegin } : {}),
  });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  try {
    await server.connect(transport);
    return await transport.handleRequest(
      request,
      context.parsedBody === undefined ? undefined : { parsedBody: context.parsedBody },
    );
  } finally {
    await server.close();
  }
}
