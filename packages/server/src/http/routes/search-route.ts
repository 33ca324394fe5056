import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv, AppOptions } from '../app-env.js';
import { buildRedactedExplain } from '../explain.js';
import { errorResponses } from '../schemas/common-schemas.js';
import { searchRequestSchema, searchResponseSchema } from '../schemas/search-schemas.js';
import { toOptionalArtifactRef, toSearchHit } from '../wire.js';
import { jsonBody, jsonOk } from './json-body.js';
import { authorize, readOptions, requireRuntime, searchLane } from './route-helpers.js';

const searchRoute = createRoute({
  method: 'post',
  path: '/v1/memory/search',
  tags: ['memory'],
  summary: 'Search a scope’s Memory; every hit carries its exact citation',
  description:
    'Idempotent: a retryable failure (see error.retryable) may be retried unchanged. The response holds the final hits only; `explain` is added only when asked for.',
  security: [{ bearerAuth: [] }],
  request: { body: jsonBody(searchRequestSchema, 'The query, the limit and the mode.') },
  responses: {
    200: jsonOk(searchResponseSchema, 'The final hits, all citing `memory.revision`.'),
    ...errorResponses(400, 401, 403, 409, 413, 422, 429, 500, 502, 503),
  },
});

export function registerSearchRoute(app: OpenAPIHono<AppEnv>, options: AppOptions): void {
  app.openapi(searchRoute, async (c) => {
    const body = c.req.valid('json');
    authorize(c, body.scope_id, 'read');
    // Asked-for explain without the permission is refused, never silently dropped.
    if (body.explain !== undefined) authorize(c, body.scope_id, 'explain');
    const runtime = requireRuntime(options.runtime);
    const result = await runtime.memory.forScope(body.scope_id).search(
      {
        query: body.query,
        ...(body.limit === undefined ? {} : { limit: body.limit }),
        ...(body.mode === undefined ? {} : { mode: body.mode }),
      },
      // Explain reads where each hit's lexical match came from: one more read, only when asked for.
      {
        signal: c.get('signal'),
        ...(body.explain === undefined ? {} : { explain: true }),
        ...readOptions(body),
        ...searchLane(c, options),
      },
    );
    const memory = result.memory;
    const response = {
      memory: toOptionalArtifactRef(memory),
      mode: result.mode,
      hits: memory ? result.hits.map((hit) => toSearchHit(hit, memory)) : [],
    };
    if (body.explain === undefined) return c.json(response, 200);
    return c.json(
      { ...response, explain: buildRedactedExplain(result, runtime.capabilities().retrievalPolicyId) },
      200,
    );
  });
}
