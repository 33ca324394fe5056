import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { Runtime, RuntimeStatus } from '@powercontext/runtime';
import { scopesOf } from '../../auth/scopes-of.js';
import { ApiError } from '../api-error.js';
import type { AppEnv, AppOptions } from '../app-env.js';
import { isKnownCaller } from '../middleware/authenticate.js';
import { errorResponses } from '../schemas/common-schemas.js';
import {
  capabilitiesResponseSchema,
  healthResponseSchema,
  readyResponseSchema,
  scopesResponseSchema,
} from '../schemas/system-schemas.js';
import { isWireChannel } from '../wire-channels.js';
import { jsonOk } from './json-body.js';
import { requireRuntime } from './route-helpers.js';

const capabilitiesRoute = createRoute({
  method: 'get',
  path: '/v1/capabilities',
  tags: ['system'],
  summary: 'Search modes, the embedding profile and the rerank policy in use',
  security: [{ bearerAuth: [] }],
  responses: {
    200: jsonOk(capabilitiesResponseSchema, 'What this server’s runtime can do.'),
    ...errorResponses(401, 429, 503),
  },
});

const scopesRoute = createRoute({
  method: 'get',
  path: '/v1/scopes',
  tags: ['system'],
  summary: 'The scopes this API key may use, and its permissions',
  security: [{ bearerAuth: [] }],
  responses: {
    200: jsonOk(scopesResponseSchema, 'The caller’s scopes and permissions.'),
    ...errorResponses(401, 429, 500, 503),
  },
});

const healthRoute = createRoute({
  method: 'get',
  path: '/healthz',
  tags: ['system'],
  summary: 'Liveness: the process answers HTTP',
  security: [],
  responses: { 200: jsonOk(healthResponseSchema, 'Always ok while the process serves requests.') },
});

const readyRoute = createRoute({
  method: 'get',
  path: '/readyz',
  tags: ['system'],
  summary: 'Readiness: the runtime is open, the database answers and holds every migration',
  description:
    'Not ready (503): starting or shutting down (not_ready), or the primary database did not answer within 2 s or misses a migration (database_unavailable). Read replicas are reported with their lag; they never make the server unready. Open to every caller, but with API keys configured only a caller presenting a valid key (any permission; no rate-limit token) gets the detail: `database`, `replicas`, and the reason of a 503. Any other caller gets `{"status":"ready"}` or 503 not_ready, nothing more; a missing or unknown key is not refused. A keyless server (loopback only) always gives the detail.',
  security: [{}, { bearerAuth: [] }],
  responses: {
    200: jsonOk(readyResponseSchema, 'Ready for requests.'),
    ...errorResponses(503),
  },
});

const metricsRoute = createRoute({
  method: 'get',
  path: '/metrics',
  tags: ['system'],
  summary: 'Prometheus metrics: requests, search latency, rerank outcomes, pool usage, replica lag',
  description:
    'The Prometheus text format. With API keys configured it needs a valid key (any permission), like the API; without keys the server serves loopback only.',
  security: [{ bearerAuth: [] }],
  responses: {
    200: {
      description: 'The metrics, in the Prometheus text exposition format 0.0.4.',
      content: { 'text/plain': { schema: z.string() } },
    },
    ...errorResponses(401, 404),
  },
});

/** How long /readyz waits for the database before it answers not ready. */
const READY_CHECK_MS = 2_000;

async function statusWithin(runtime: Runtime, ms: number): Promise<RuntimeStatus | undefined> {
  if (!runtime.status) return undefined;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
  });
  try {
    const status = await Promise.race([runtime.status(), late]);
    return status === 'late'
      ? { database: { reachable: false, migrationsCurrent: false, missingMigrations: [] }, replicas: [] }
      : status;
  } finally {
    clearTimeout(timer);
  }
}

export function registerSystemRoutes(app: OpenAPIHono<AppEnv>, options: AppOptions): void {
  app.openapi(capabilitiesRoute, (c) => {
    const capabilities = requireRuntime(options.runtime).capabilities();
    const profile = capabilities.embeddingProfile;
    return c.json(
      {
        api_version: 'v1' as const,
        search_modes: [...capabilities.searchModes],
        search_channels: capabilities.searchChannels.filter(isWireChannel),
        embedding_profile: {
          id: profile.id,
          dimension: profile.dimension,
          normalization: profile.normalization,
          min_cosine: profile.minCosine,
        },
        retrieval_policy_id: capabilities.retrievalPolicyId,
        rerank: capabilities.rerank
          ? {
              policy_id: capabilities.rerank.policyId,
              candidate_limit: capabilities.rerank.candidateLimit,
              failure_policy: capabilities.rerank.failurePolicy,
            }
          : null,
        // What this caller may ask for: explain needs the permission of its own.
        explain: c.get('principal').permissions.has('explain') ? ['redacted' as const] : [],
      },
      200,
    );
  });

  app.openapi(scopesRoute, async (c) =>
    c.json(await scopesOf(c.get('principal'), requireRuntime(options.runtime)), 200),
  );

  app.openapi(healthRoute, (c) => c.json({ status: 'ok' as const }, 200));

  app.openapi(readyRoute, async (c) => {
    const runtime = requireRuntime(options.runtime);
    // Replica names (host:port/database), migrations and lag are for operators: a caller without a
    // valid key learns ready or not, nothing about the databases behind the server (issue 28).
    const detailed = isKnownCaller(options.auth, c.req.header('authorization'));
    const status = await statusWithin(runtime, READY_CHECK_MS);
    const database = status?.database ?? { reachable: true, migrationsCurrent: true, missingMigrations: [] };
    const replicas = (status?.replicas ?? []).map((replica) => ({
      name: replica.name,
      lag_seconds: replica.lagSeconds ?? null,
      down: replica.down || replica.lagSeconds === undefined,
    }));
    if (!database.reachable || !database.migrationsCurrent) {
      if (!detailed) {
        throw new ApiError('not_ready', 'The server is not ready', { retryable: true, retryAfterSeconds: 1 });
      }
      throw new ApiError(
        'database_unavailable',
        database.reachable
          ? `The database misses migrations ${database.missingMigrations.join(', ')}`
          : `The database did not answer within ${READY_CHECK_MS} ms`,
        {
          retryable: true,
          retryAfterSeconds: 1,
          details: {
            reachable: database.reachable,
            migrations_current: database.migrationsCurrent,
            replicas,
          },
        },
      );
    }
    if (!detailed) return c.json({ status: 'ready' as const }, 200);
    return c.json(
      { status: 'ready' as const, database: { reachable: true, migrations_current: true }, replicas },
      200,
    );
  });

  app.openapi(metricsRoute, async (c) => {
    if (!options.metrics) throw new ApiError('not_found', 'This server has no metrics');
    const runtime = options.runtime();
    const status = runtime ? await statusWithin(runtime, READY_CHECK_MS) : undefined;
    return c.text(options.metrics.render(status), 200, {
      'content-type': 'text/plain; version=0.0.4; charset=utf-8',
    });
  });
}
