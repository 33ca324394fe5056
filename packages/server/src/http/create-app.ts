import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import { mayReadPurgedBy } from '../auth/principal.js';
import { ApiError } from './api-error.js';
import type { AppEnv, AppOptions, StartedWrite } from './app-env.js';
import { registerInspectorRoutes } from './inspector-routes.js';
import { accessLog } from './middleware/access-log.js';
import { authenticate } from './middleware/authenticate.js';
import { inFlightSlot } from './middleware/in-flight-slot.js';
import { originGuard } from './middleware/origin-guard.js';
import { recordMetrics } from './middleware/record-metrics.js';
import { rejectProtoKeys } from './middleware/reject-proto-keys.js';
import { requestId } from './middleware/request-id.js';
import { requestTimeout } from './middleware/request-timeout.js';
import { securityHeaders } from './middleware/security-headers.js';
import { registerContextRoute } from './routes/context-route.js';
import { registerMemoryRoutes } from './routes/memory-routes.js';
import { requireRuntime } from './routes/route-helpers.js';
import { registerScopeRoutes } from './routes/scope-routes.js';
import { registerScopeSummaryRoute } from './routes/scope-summary-route.js';
import { registerSearchRoute } from './routes/search-route.js';
import { registerSystemRoutes } from './routes/system-routes.js';
import { invalidMessage, toApiError } from './to-api-error.js';
import { validationIssues } from './validation-issues.js';
import type { PurgeView } from './wire.js';

/** Most JSON-RPC messages one POST to /mcp may hold; a larger batch is refused whole. */
export const MCP_MAX_BATCH = 20;

/**
 * The HTTP v1 application: middleware (request id, access log, security headers, the Host and Origin
 * guard, timeout, auth and rate limit, the key's in-flight slots, body limit), the routes, one error
 * shape for every failure, and the MCP endpoint when one is given.
 */
export function createApp(options: AppOptions): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        const issues = validationIssues(result.error);
        throw new ApiError('invalid_request', invalidMessage(issues), { details: { issues } });
      }
    },
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'An API key from the server’s keys file, as "Authorization: Bearer <key>".',
  });

  app.use('*', requestId());
  app.use('*', accessLog(options.logger));
  app.use('*', securityHeaders());
  app.use(
    '*',
    originGuard(
      options.origins ?? { loopbackOnly: options.auth.kind === 'local', allowedOrigins: new Set() },
    ),
  );
  const limitBody = bodyLimit({
    maxSize: options.bodyLimitBytes,
    onError: () => {
      throw new ApiError('payload_too_large', `The body is larger than ${options.bodyLimitBytes} bytes`);
    },
  });
  const timeout = requestTimeout(options.requestTimeoutMs);
  if (options.metrics)
    app.use(
      '*',
      recordMetrics(options.metrics, () => app.routes),
    );
  // /metrics reads like the API: with keys it needs one (no rate-limit token, no permission).
  app.use('/metrics', timeout, authenticate(options.auth, undefined, { charge: false }));
  app.use('/v1/*', timeout, authenticate(options.auth, options.admission, { charge: true }));
  // Memory work holds one of the key's in-flight slots while it runs (MCP: each tool call does), and
  // so does listing the scopes, which reads the store for a key of every scope.
  for (const path of ['/v1/memory/*', '/v1/context/*']) app.use(path, inFlightSlot(options.admission));
  app.use('/v1/scopes', inFlightSlot(options.admission, ['GET', 'HEAD']));
  app.use('/v1/*', limitBody, rejectProtoKeys());
  app.use(
    '/mcp',
    timeout,
    authenticate(options.auth, options.admission, { charge: false }),
    limitBody,
    rejectProtoKeys(),
  );

  registerSystemRoutes(app, options);
  registerMemoryRoutes(app, options);
  registerSearchRoute(app, options);
  registerContextRoute(app, options);
  registerScopeSummaryRoute(app, options);
  registerScopeRoutes(app, options);
  if (options.ui) registerInspectorRoutes(app, { keyless: options.auth.kind === 'local' });

  const mcp = options.mcp;
  if (mcp) {
    app.all('/mcp', async (c) => {
      const principal = c.get('principal');
      const watch = c.get('writeWatch');
      const context = {
        runtime: requireRuntime(options.runtime),
        principal,
        admitToolCall: async () => (await options.admission?.admit(principal)) ?? (() => {}),
        ...(options.admission
          ? {
              inSearchLane: <T>(signal: AbortSignal, work: () => Promise<T>) =>
                options.admission!.inSearchLane(principal, signal, work),
            }
          : {}),
        // The request timeout abandons tool writes that have not begun, and answers
        // write_outcome_unknown once one has.
        signal: c.get('signal'),
        onWriteBegin: (write: StartedWrite) => {
          if (watch) watch.started ??= write;
        },
      };
      if (c.req.method !== 'POST') return mcp(c.req.raw, { ...context, parsedBody: undefined });
      const body = await readJsonRpcBody(c.req.raw);
      if (body instanceof Response) return body;
      return mcp(c.req.raw, { ...context, parsedBody: body });
    });
  }

  app.notFound((c) => {
    const allowed = allowedMethods(app, c.req.path);
    if (allowed.length > 0) {
      return respond(
        c,
        new ApiError(
          'method_not_allowed',
          `${c.req.path} does not answer ${c.req.method}; use ${allowed.join(' or ')}`,
          {
            headers: { allow: allowed.join(', ') },
          },
        ),
      );
    }
    return respond(c, new ApiError('not_found', `No route ${c.req.method} ${c.req.path}`));
  });
  app.onError((error, c) => {
    const apiError = fromHttpException(error) ?? toApiError(error, purgeViewOfError(c));
    if (apiError.status >= 500) {
      options.logger.error({
        event: 'http.error',
        request_id: c.get('requestId'),
        code: apiError.code,
        ...describe(apiError.cause ?? error, apiError.code === 'internal_error'),
      });
    }
    return respond(c, apiError);
  });
  return app;
}

/**
 * The body of a POST to /mcp, parsed once here so the batch rule holds before any message runs: a
 * batch of more than MCP_MAX_BATCH messages is refused whole. Rate limits are charged per tool call by
 * the tools, so the handshake and listing tools cost nothing. Errors are JSON-RPC error bodies, as the
 * MCP transport answers them.
 */
async function readJsonRpcBody(request: Request): Promise<unknown> {
  const text = await request.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return jsonRpcError(400, -32700, 'Parse error: the body is not JSON');
  }
  if (Array.isArray(body) && body.length > MCP_MAX_BATCH) {
    return jsonRpcError(400, -32600, `Invalid Request: a batch holds at most ${MCP_MAX_BATCH} messages`);
  }
  return body;
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });
}

/**
 * The methods the routes registered for exactly this path (HEAD goes with GET, as Hono answers it);
 * empty when no route has this path. Middleware and catch-all handlers (`ALL`) do not count.
 */
function allowedMethods(app: OpenAPIHono<AppEnv>, path: string): string[] {
  const methods = new Set(
    app.routes.filter((route) => route.path === path && route.method !== 'ALL').map((route) => route.method),
  );
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

/** Whether an error answer may say who purged: only to a caller that may purge in the request's scope. */
function purgeViewOfError(c: Context<AppEnv>): PurgeView {
  const principal = c.get('principal');
  const scopeId = c.get('scopeId');
  return {
    purgedBy: principal !== undefined && scopeId !== undefined && mayReadPurgedBy(principal, scopeId),
  };
}

function respond(c: Context<AppEnv>, error: ApiError): Response {
  c.set('errorCode', error.code);
  return c.json(error.body(), error.status, error.headers);
}

/** Hono's own exceptions: a body that is not JSON (400) or not sent as JSON (415), or too large. */
function fromHttpException(error: unknown): ApiError | undefined {
  if (!(error instanceof HTTPException)) return undefined;
  if (error.status === 413) return new ApiError('payload_too_large', 'The body is too large');
  if (error.status === 400 || error.status === 415) {
    return new ApiError(
      'malformed_request',
      error.status === 415
        ? 'Send the body as JSON with "Content-Type: application/json"'
        : 'The body is not valid JSON',
    );
  }
  return undefined;
}

/**
 * What the log keeps of a failure: its class and code. Messages of dependency failures can quote
 * data (a driver error may echo a value), so only unexpected errors, which are bugs, keep theirs.
 */
function describe(error: unknown, unexpected: boolean) {
  if (!(error instanceof Error)) return { error_name: typeof error };
  const code = (error as { code?: unknown }).code;
  return {
    error_name: error.name,
    ...(typeof code === 'string' ? { error_code: code } : {}),
    ...(unexpected ? { error_message: error.message, stack: error.stack } : {}),
  };
}
