import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv, AppOptions } from '../app-env.js';
import { toContractInput, toPreparedContext } from '../context-wire.js';
import { errorResponses } from '../schemas/common-schemas.js';
import { prepareContextRequestSchema, prepareContextResponseSchema } from '../schemas/context-schemas.js';
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

const prepareRoute = createRoute({
  method: 'post',
  path: '/v1/context/prepare',
  tags: ['context'],
  summary:
    'Search a scope’s Memory (or several scopes’) and pack the evidence a generator reads under a token budget',
  description:
    'Search (with the configured reranker), then context assembly under the contract (RFC 0008): the framed `context`, each chunk’s exact citation, and every candidate left out with its reason. Retrieved text appears only inside `context`. Idempotent like search. A contract value that breaks a rule, including a token budget smaller than the empty frame, is a 422 naming `contract.<field>`; it is checked before the search runs.',
  security: [{ bearerAuth: [] }],
  request: {
    body: jsonBody(prepareContextRequestSchema, 'The query, the limit, the mode and the contract.'),
  },
  responses: {
    200: jsonOk(prepareContextResponseSchema, 'The framed context and the assembly report.'),
    ...errorResponses(400, 401, 403, 409, 410, 413, 422, 429, 500, 502, 503),
  },
});

export function registerContextRoute(app: OpenAPIHono<AppEnv>, options: AppOptions): void {
  app.openapi(prepareRoute, async (c) => {
    const body = c.req.valid('json');
    const scopeIds = body.scope_ids;
    if (scopeIds) authorizeScopes(c, scopeIds, 'read');
    else authorize(c, body.scope_id!, 'read');
    const runtime = requireRuntime(options.runtime);
    const contract = toContractInput(body.contract);
    const request = {
      query: body.query,
      ...(body.limit === undefined ? {} : { limit: body.limit }),
      ...(body.mode === undefined ? {} : { mode: body.mode }),
      ...wireFilterPart(body.filter),
      ...(contract === undefined ? {} : { contract }),
    };
    const readBase = { signal: c.get('signal'), ...searchLane(c, options) };
    const prepared = scopeIds
      ? await runtime.memory.prepareContext(scopeIds, request, { ...readBase, ...scopesReadOptions(body) })
      : await runtime.memory
          .forScope(body.scope_id!)
          .prepareContext(request, { ...readBase, ...readOptions(body) });
    return c.json(toPreparedContext(prepared, scopeIds !== undefined), 200);
  });
}
