import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import { ApiError } from './api-error.js';
import type { AppEnv, AppOptions } from './app-env.js';
import { accessLog } from './middleware/access-log.js';
import { authenticate } from './middleware/authenticate.js';
import { rejectProtoKeys } from './middleware/reject-proto-keys.js';
import { requestId } from './middleware/request-id.js';
import { requestTimeout } from './middleware/request-timeout.js';
import { registerContextRoute } from './routes/context-route.js';
import { registerMemoryRoutes } from './routes/memory-routes.js';
import { requireRuntime } from './routes/route-helpers.js';
import { registerSearchRoute } from './routes/search-route.js';
import { registerSystemRoutes } from './routes/system-routes.js';
import { invalidMessage, toApiError } from './to-api-error.js';
import { validationIssues } from './validation-issues.js';

/**
 * The HTTP v1 application: middleware (request id, access log, timeout, auth and rate limit, body
 * limit), the routes, one error shape for every failure, and the MCP endpoint when one is given.
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
  const guarded = [
    requestTimeout(options.requestTimeoutMs),
    authenticate(options.auth, options.rateLimiter),
    bodyLimit({
      maxSize: options.bodyLimitBytes,
      onError: () => {
        throw new ApiError('payload_too_large', `The body is larger than ${options.bodyLimitBytes} bytes`);
      },
    }),
    rejectProtoKeys(),
  ] as const;
  for (const path of ['/v1/*', '/mcp']) app.use(path, ...guarded);

  registerSystemRoutes(app, options);
  registerMemoryRoutes(app, options);
  registerSearchRoute(app, options);
  registerContextRoute(app, options);

  const mcp = options.mcp;
  if (mcp) {
    app.all('/mcp', (c) =>
      mcp(c.req.raw, { runtime: requireRuntime(options.runtime), principal: c.get('principal') }),
    );
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
    const apiError = fromHttpException(error) ?? toApiError(error);
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
