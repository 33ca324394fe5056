import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv, AppOptions } from '../app-env.js';
import { buildRedactedExplain } from '../explain.js';
import { errorResponses } from '../schemas/common-schemas.js';
import { searchRequestSchema, searchResponseSchema } from '../schemas/search-schemas.js';
import { toOptionalArtifactRef, toScopesRead, toSearchHit } from '../wire.js';
import { wireFilterPart } from '../wire-filter.js';
import { jsonBody, jsonOk } from './json-body.js';
import {
  authorize,
  authorizeScopes,
  readOptions,
  requireRuntime,
  scopesReadOptions,
  searchLane,
} from './route-helpers.js';

const searchRoute = createRoute({
  method: 'post',
  path: '/v1/memory/search',
  tags: ['memory'],
  summary: 'Search a scope’s Memory, or several scopes’ at once; every hit carries its exact citation',
  description:
    'Idempotent: a retryable failure (see error.retryable) may be retried unchanged. The response holds the final hits only; `explain` is added only when asked for.',
  security: [{ bearerAuth: [] }],
  request: { body: jsonBody(searchRequestSchema, 'The query, the limit and the mode.') },
  responses: {
    200: jsonOk(
      searchResponseSchema,
      'The final hits, all citing `memory.revision`, or with scope_ids each citing its own scope’s revision in `scopes`.',
    ),
    ...errorResponses(400, 401, 403, 409, 410, 413, 422, 429, 500, 502, 503),
  },
});

export function registerSearchRoute(app: OpenAPIHono<AppEnv>, options: AppOptions): void {
  app.openapi(searchRoute, async (c) => {
    const body = c.req.valid('json');
    const scopeIds = body.scope_ids;
    for (const permission of body.explain === undefined
      ? ['read' as const]
      : ['read' as const, 'explain' as const]) {
      // Asked-for explain without the permission is refused, never silently dropped.
      if (scopeIds) authorizeScopes(c, scopeIds, permission);
      else authorize(c, body.scope_id!, permission);
    }
    const runtime = requireRuntime(options.runtime);
    const request = {
      query: body.query,
      ...(body.limit === undefined ? {} : { limit: body.limit }),
      ...(body.mode === undefined ? {} : { mode: body.mode }),
      ...wireFilterPart(body.filter),
    };
    // Explain reads where each hit's lexical match came from: one more read, only when asked for.
    const searchOptions = {
      signal: c.get('signal'),
      ...(body.explain === undefined ? {} : { explain: true }),
      ...searchLane(c, options),
    };
    const result = scopeIds
      ? await runtime.memory.search(scopeIds, request, { ...searchOptions, ...scopesReadOptions(body) })
      : await runtime.memory
          .forScope(body.scope_id!)
          .search(request, { ...searchOptions, ...readOptions(body) });
    const response = {
      memory: toOptionalArtifactRef(result.memory),
      ...(scopeIds ? { scopes: toScopesRead(result.scopes) } : {}),
      mode: result.mode,
      hits: result.hits.map(toSearchHit),
    };
    if (body.explain === undefined) return c.json(response, 200);
    return c.json(
      { ...response, explain: buildRedactedExplain(result, runtime.capabilities().retrievalPolicyId) },
      200,
    );
  });
}
