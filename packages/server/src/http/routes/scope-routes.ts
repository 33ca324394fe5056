import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { EntryVersion } from '@powercontext/memory-core';
import type { AppEnv, AppOptions } from '../app-env.js';
import { errorResponses } from '../schemas/common-schemas.js';
import {
  deleteScopeRequestSchema,
  deleteScopeResponseSchema,
  exportQuerySchema,
} from '../schemas/scope-schemas.js';
import { toExportLine, toScopeTombstone } from '../wire.js';
import { jsonBody, jsonOk } from './json-body.js';
import { authorize, purgeView, requireRuntime } from './route-helpers.js';

const security = [{ bearerAuth: [] }];

/** The response header that says which revision an export read. */
export const EXPORT_REVISION_HEADER = 'Memory-Revision';

const deleteScopeRoute = createRoute({
  method: 'post',
  path: '/v1/scopes/delete',
  tags: ['scopes'],
  summary: 'Delete a whole scope for good (purge permission)',
  description:
    'Erases every entry of the scope at every revision, as purge does for one entry: text, kind, sources, metadata, vectors, lexical index entries (its words in neighbours’ index too), entity index, search statistics, stored Idempotency-Key answers, revisions. A tombstone stays: afterwards every read and write of the scope answers 410 scope_purged, and the name cannot be used again. Needs the `purge` permission on the scope. Repeating it answers `unchanged` with the same tombstone; a scope never written is 404. Export the scope first (GET /v1/memory/export) to keep a copy.',
  security,
  request: { body: jsonBody(deleteScopeRequestSchema, 'The scope to delete.') },
  responses: {
    200: jsonOk(deleteScopeResponseSchema, 'The tombstone the deletion left.'),
    ...errorResponses(400, 401, 403, 404, 413, 422, 429, 500, 503),
  },
});

const exportRoute = createRoute({
  method: 'get',
  path: '/v1/memory/export',
  tags: ['memory'],
  summary: 'Stream a scope’s active entries as JSON Lines, in the import format',
  description:
    'One entry a line ({"text", "kind", "sources", "position", "metadata"}, as POST /v1/memory/remember takes them and `powercontext memory import` reads them), the active entries at one revision (default the head; the `Memory-Revision` header says which), ordered by content hash so that a scope imported from an export exports the same lines. Read page by page at that revision while writes go on. Forgotten entries, history and ids are not exported. A scope never written answers an empty body with `Memory-Revision: 0`. Errors found before the first line answer as usual; a failure part way through ends the response early, without a final newline.',
  security,
  request: { query: exportQuerySchema },
  responses: {
    200: {
      description: 'The entries, one JSON object a line.',
      headers: z.object({
        [EXPORT_REVISION_HEADER]: z
          .string()
          .openapi({ description: 'The revision exported (0: never written).' }),
      }),
      content: { 'application/x-ndjson': { schema: z.string() } },
    },
    ...errorResponses(401, 403, 404, 410, 422, 429, 500, 503),
  },
});

export function registerScopeRoutes(app: OpenAPIHono<AppEnv>, options: AppOptions): void {
  app.openapi(deleteScopeRoute, async (c) => {
    const body = c.req.valid('json');
    authorize(c, body.scope_id, 'purge');
    const result = await requireRuntime(options.runtime)
      .memory.forScope(body.scope_id)
      .deleteScope({ deletedBy: c.get('principal').keyId });
    return c.json(
      { status: result.status, tombstone: toScopeTombstone(result.tombstone, purgeView(c, body.scope_id)) },
      200,
    );
  });

  app.openapi(exportRoute, async (c) => {
    const query = c.req.valid('query');
    authorize(c, query.scope_id, 'read');
    const handle = await requireRuntime(options.runtime)
      .memory.forScope(query.scope_id)
      .openExport(query.revision === undefined ? {} : { revision: Number(query.revision) });
    const signal = c.req.raw.signal;
    const pages = handle.pages();
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const next = signal.aborted ? undefined : await pages.next();
          if (!next || next.done) {
            controller.close();
            return;
          }
          controller.enqueue(encoder.encode(linesOf(next.value)));
        } catch (error) {
          controller.error(error);
        }
      },
      async cancel() {
        await pages.return(undefined);
      },
    });
    return c.body(body, 200, {
      'Content-Type': 'application/x-ndjson; charset=utf-8',
      [EXPORT_REVISION_HEADER]: String(handle.memory?.revision ?? 0),
    }) as never;
  });
}

function linesOf(page: readonly EntryVersion[]): string {
  return page.map((version) => `${toExportLine(version)}\n`).join('');
}
