import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { LIST_LIMIT_MAX } from '@powercontext/memory-core';
import type { AppEnv, AppOptions } from '../app-env.js';
import { errorResponses, nullableArtifactRef, scopeIdField } from '../schemas/common-schemas.js';
import { toOptionalArtifactRef } from '../wire.js';
import { jsonBody, jsonOk } from './json-body.js';
import { authorize, requireRuntime } from './route-helpers.js';

export const scopeSummaryRequestSchema = z
  .strictObject({ scope_id: scopeIdField })
  .openapi('ScopeSummaryRequest');

export const scopeSummaryResponseSchema = z
  .object({
    memory: nullableArtifactRef('The scope’s head revision; null when the scope was never written.'),
    entries: z
      .object({
        active: z.int().min(0).openapi({ description: 'Entries whose current version is active.' }),
        inactive: z.int().min(0).openapi({ description: 'Entries whose current version is forgotten.' }),
      })
      .openapi({ description: 'Entries at `memory.revision`, by state; both 0 for a scope never written.' }),
  })
  .openapi('ScopeSummaryResponse');

const summaryRoute = createRoute({
  method: 'post',
  path: '/v1/memory/summary',
  tags: ['memory'],
  summary: 'A scope’s head revision and how many entries it holds',
  description:
    'Counts every entry at the head, so its cost grows with the scope (one list page of 200 entries per 200 entries). Needs the read permission.',
  security: [{ bearerAuth: [] }],
  request: { body: jsonBody(scopeSummaryRequestSchema, 'The scope to summarize.') },
  responses: {
    200: jsonOk(scopeSummaryResponseSchema, 'The head and the entry counts, read at one revision.'),
    ...errorResponses(400, 401, 403, 410, 413, 422, 429, 500, 503),
  },
});

/**
 * `POST /v1/memory/summary`: what the inspector's scope list shows for each scope. The counts come
 * from listing the head page by page at one revision, so they agree with `memory.revision` even when
 * a write lands meanwhile.
 */
export function registerScopeSummaryRoute(app: OpenAPIHono<AppEnv>, options: AppOptions): void {
  app.openapi(summaryRoute, async (c) => {
    const { scope_id: scopeId } = c.req.valid('json');
    authorize(c, scopeId, 'read');
    const memory = requireRuntime(options.runtime).memory.forScope(scopeId);
    const signal = c.get('signal');
    const counts = { active: 0, inactive: 0 };
    let page = await memory.list({ state: 'all', limit: LIST_LIMIT_MAX });
    const head = page.memory;
    for (;;) {
      for (const entry of page.entries) counts[entry.state] += 1;
      if (page.nextCursor === undefined || head === undefined) break;
      signal?.throwIfAborted();
      page = await memory.list({
        state: 'all',
        revision: head.revision,
        cursor: page.nextCursor,
        limit: LIST_LIMIT_MAX,
      });
    }
    return c.json({ memory: toOptionalArtifactRef(head), entries: counts }, 200);
  });
}
