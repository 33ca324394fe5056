import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { scopesOf } from '../../auth/scopes-of.js';
import type { AppEnv, AppOptions } from '../app-env.js';
import { errorResponses } from '../schemas/common-schemas.js';
import {
  capabilitiesResponseSchema,
  healthResponseSchema,
  scopesResponseSchema,
} from '../schemas/system-schemas.js';
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
  summary: 'Readiness: the runtime is open and the server is not shutting down',
  security: [],
  responses: {
    200: jsonOk(healthResponseSchema, 'Ready for requests.'),
    ...errorResponses(503),
  },
});

export function registerSystemRoutes(app: OpenAPIHono<AppEnv>, options: AppOptions): void {
  app.openapi(capabilitiesRoute, (c) => {
    const capabilities = requireRuntime(options.runtime).capabilities();
    const profile = capabilities.embeddingProfile;
    return c.json(
      {
        api_version: 'v1' as const,
        search_modes: [...capabilities.searchModes],
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

  app.openapi(readyRoute, (c) => {
    requireRuntime(options.runtime);
    return c.json({ status: 'ready' as const }, 200);
  });
}
