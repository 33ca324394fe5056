import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { JsonValue } from '@powercontext/memory-core';
import type { AppEnv, AppOptions } from '../app-env.js';
import { errorResponses } from '../schemas/common-schemas.js';
import {
  IDEMPOTENCY_KEY_HEADER,
  idempotencyHeadersSchema,
  writeResponseHeaders,
} from '../schemas/idempotency-schemas.js';
import {
  changesRequestSchema,
  changesResponseSchema,
  entryTargetRequestSchema,
  entryWriteResponseSchema,
  getEntryRequestSchema,
  getEntryResponseSchema,
  listEntriesRequestSchema,
  listEntriesResponseSchema,
  purgeResponseSchema,
  rememberRequestSchema,
  rememberResponseSchema,
  reviseRequestSchema,
} from '../schemas/memory-schemas.js';
import {
  fromWireRememberEntry,
  toArtifactRef,
  toChange,
  toEntryVersion,
  toOptionalArtifactRef,
  toPurgedMarkers,
  toPurgeTombstone,
} from '../wire.js';
import { wireFilterPart } from '../wire-filter.js';
import { jsonBody, jsonOk } from './json-body.js';
import {
  authorize,
  markReplayed,
  purgeView,
  readOptions,
  requireRuntime,
  writeOptions,
} from './route-helpers.js';

const COMMON_ERRORS = [400, 401, 403, 410, 413, 422, 429, 500, 503] as const;
const security = [{ bearerAuth: [] }];

const WRITE_DESCRIPTION =
  'Send an `Idempotency-Key` to make the write safe to repeat: a repeat with the same key and body answers the first result (`Idempotent-Replayed: true`) and writes nothing. A request timeout answers 503 `request_timeout` when the write had not begun (nothing was written), and 504 `write_outcome_unknown` when its transaction had begun (it may still commit: repeat with the same key, or read the changes after `error.details.from_revision`).';

const rememberRoute = createRoute({
  method: 'post',
  path: '/v1/memory/remember',
  tags: ['memory'],
  summary: 'Add entries to a scope’s Memory (one new revision)',
  description: WRITE_DESCRIPTION,
  security,
  request: {
    headers: idempotencyHeadersSchema,
    body: jsonBody(rememberRequestSchema, 'Entries to remember.'),
  },
  responses: {
    200: jsonOk(
      rememberResponseSchema,
      'The new revision and, per entry, its ids (existing ids for duplicates).',
      writeResponseHeaders,
    ),
    ...errorResponses(...COMMON_ERRORS, 409, 504),
  },
});

const listRoute = createRoute({
  method: 'post',
  path: '/v1/memory/entries/list',
  tags: ['memory'],
  summary: 'List entries at one revision, page by page',
  security,
  request: { body: jsonBody(listEntriesRequestSchema, 'Which entries and which page.') },
  responses: {
    200: jsonOk(listEntriesResponseSchema, 'One page of entries, all read at `memory.revision`.'),
    ...errorResponses(...COMMON_ERRORS, 404),
  },
});

const getRoute = createRoute({
  method: 'post',
  path: '/v1/memory/entries/get',
  tags: ['memory'],
  summary: 'Read one entry at a revision (default: the head)',
  security,
  request: { body: jsonBody(getEntryRequestSchema, 'The entry and, optionally, the revision.') },
  responses: {
    200: jsonOk(getEntryResponseSchema, 'The entry version current at that revision.'),
    ...errorResponses(...COMMON_ERRORS, 404),
  },
});

const reviseRoute = createRoute({
  method: 'post',
  path: '/v1/memory/entries/revise',
  tags: ['memory'],
  summary: 'Replace an entry’s text with a new version',
  description: WRITE_DESCRIPTION,
  security,
  request: {
    headers: idempotencyHeadersSchema,
    body: jsonBody(reviseRequestSchema, 'The entry and its new text.'),
  },
  responses: {
    200: jsonOk(
      entryWriteResponseSchema,
      'The new revision and the entry’s current version.',
      writeResponseHeaders,
    ),
    ...errorResponses(...COMMON_ERRORS, 404, 409, 504),
  },
});

const forgetRoute = createRoute({
  method: 'post',
  path: '/v1/memory/entries/forget',
  tags: ['memory'],
  summary: 'Mark an entry inactive; search never returns it afterwards, its text stays in history',
  description: WRITE_DESCRIPTION,
  security,
  request: {
    headers: idempotencyHeadersSchema,
    body: jsonBody(entryTargetRequestSchema, 'The entry to forget.'),
  },
  responses: {
    200: jsonOk(
      entryWriteResponseSchema,
      'The new revision and the entry’s current version.',
      writeResponseHeaders,
    ),
    ...errorResponses(...COMMON_ERRORS, 404, 409, 504),
  },
});

const reactivateRoute = createRoute({
  method: 'post',
  path: '/v1/memory/entries/reactivate',
  tags: ['memory'],
  summary: 'Mark a forgotten entry active again',
  description: WRITE_DESCRIPTION,
  security,
  request: {
    headers: idempotencyHeadersSchema,
    body: jsonBody(entryTargetRequestSchema, 'The entry to reactivate.'),
  },
  responses: {
    200: jsonOk(
      entryWriteResponseSchema,
      'The new revision and the entry’s current version.',
      writeResponseHeaders,
    ),
    ...errorResponses(...COMMON_ERRORS, 404, 409, 504),
  },
});

const purgeRoute = createRoute({
  method: 'post',
  path: '/v1/memory/entries/purge',
  tags: ['memory'],
  summary: 'Erase every version of an entry from the store, for good (purge permission)',
  description:
    'Unlike forget, purge erases the text: every version of the entry (text, kind, hash, sources, position, metadata, vectors, lexical index, and its words in its neighbours’ index) is removed at every revision. The revisions stay, with a tombstone; reads that name the entry then answer 410 entry_purged, list and changes show it as `purged`. Needs the `purge` permission (`write` does not include it). Repeating it answers `unchanged`. It also erases the stored answers of earlier writes with an `Idempotency-Key` that name the entry. ' +
    WRITE_DESCRIPTION,
  security,
  request: {
    headers: idempotencyHeadersSchema,
    body: jsonBody(entryTargetRequestSchema, 'The entry to purge.'),
  },
  responses: {
    200: jsonOk(
      purgeResponseSchema,
      'The purge revision (or the head, when already purged) and the tombstone.',
      writeResponseHeaders,
    ),
    ...errorResponses(...COMMON_ERRORS, 404, 409, 504),
  },
});

const changesRoute = createRoute({
  method: 'post',
  path: '/v1/memory/changes',
  tags: ['memory'],
  summary: 'List the entry versions written between two revisions',
  security,
  request: { body: jsonBody(changesRequestSchema, 'The revision range and page.') },
  responses: {
    200: jsonOk(changesResponseSchema, 'One page of changes, oldest first.'),
    ...errorResponses(...COMMON_ERRORS, 404),
  },
});

/** The Memory read and write routes: validate, authorize the scope, call the runtime, answer snake_case. */
export function registerMemoryRoutes(app: OpenAPIHono<AppEnv>, options: AppOptions): void {
  app.openapi(rememberRoute, async (c) => {
    const body = c.req.valid('json');
    authorize(c, body.scope_id, 'write');
    const result = await requireRuntime(options.runtime)
      .memory.forScope(body.scope_id)
      .remember(
        { entries: body.entries.map(fromWireRememberEntry) },
        writeOptions(c, c.req.valid('header')[IDEMPOTENCY_KEY_HEADER]),
      );
    markReplayed(c, result);
    return c.json(
      {
        memory: toArtifactRef(result.memory),
        entries: result.entries.map((entry) => ({
          entry_id: entry.entryId,
          entry_version_id: entry.entryVersionId,
          status: entry.status,
        })),
      },
      200,
    );
  });

  app.openapi(listRoute, async (c) => {
    const body = c.req.valid('json');
    authorize(c, body.scope_id, 'read');
    const page = await requireRuntime(options.runtime)
      .memory.forScope(body.scope_id)
      .list(
        {
          ...(body.state === undefined ? {} : { state: body.state }),
          ...(body.revision === undefined ? {} : { revision: body.revision }),
          ...(body.cursor === undefined ? {} : { cursor: body.cursor }),
          ...(body.limit === undefined ? {} : { limit: body.limit }),
          ...(body.order === undefined ? {} : { order: body.order }),
          ...(body.text === undefined ? {} : { text: body.text }),
          ...wireFilterPart(body.filter),
        },
        readOptions(body),
      );
    return c.json(
      {
        memory: toOptionalArtifactRef(page.memory),
        entries: page.entries.map(toEntryVersion),
        ...toPurgedMarkers(page.purged, purgeView(c, body.scope_id)),
        total: page.total ?? 0,
        ...(page.nextCursor === undefined ? {} : { next_cursor: page.nextCursor }),
      },
      200,
    );
  });

  app.openapi(getRoute, async (c) => {
    const body = c.req.valid('json');
    authorize(c, body.scope_id, 'read');
    const { memory, entry } = await requireRuntime(options.runtime)
      .memory.forScope(body.scope_id)
      .get(
        { entryId: body.entry_id, ...(body.revision === undefined ? {} : { revision: body.revision }) },
        readOptions(body),
      );
    return c.json({ memory: toArtifactRef(memory), entry: toEntryVersion(entry) }, 200);
  });

  app.openapi(reviseRoute, async (c) => {
    const body = c.req.valid('json');
    authorize(c, body.scope_id, 'write');
    const result = await requireRuntime(options.runtime)
      .memory.forScope(body.scope_id)
      .revise(
        {
          entryId: body.entry_id,
          text: body.text,
          ...(body.kind === undefined ? {} : { kind: body.kind }),
          ...(body.metadata === undefined ? {} : { metadata: asJson(body.metadata) }),
          ...(body.tags === undefined ? {} : { tags: body.tags }),
          ...(body.pinned === undefined ? {} : { pinned: body.pinned }),
          ...(body.occurred_at === undefined ? {} : { occurredAt: body.occurred_at }),
        },
        writeOptions(c, c.req.valid('header')[IDEMPOTENCY_KEY_HEADER]),
      );
    markReplayed(c, result);
    return c.json(entryWrite(result), 200);
  });

  app.openapi(forgetRoute, async (c) => {
    const body = c.req.valid('json');
    authorize(c, body.scope_id, 'write');
    const result = await requireRuntime(options.runtime)
      .memory.forScope(body.scope_id)
      .forget({ entryId: body.entry_id }, writeOptions(c, c.req.valid('header')[IDEMPOTENCY_KEY_HEADER]));
    markReplayed(c, result);
    return c.json(entryWrite(result), 200);
  });

  app.openapi(reactivateRoute, async (c) => {
    const body = c.req.valid('json');
    authorize(c, body.scope_id, 'write');
    const result = await requireRuntime(options.runtime)
      .memory.forScope(body.scope_id)
      .reactivate({ entryId: body.entry_id }, writeOptions(c, c.req.valid('header')[IDEMPOTENCY_KEY_HEADER]));
    markReplayed(c, result);
    return c.json(entryWrite(result), 200);
  });

  app.openapi(purgeRoute, async (c) => {
    const body = c.req.valid('json');
    authorize(c, body.scope_id, 'purge');
    const result = await requireRuntime(options.runtime)
      .memory.forScope(body.scope_id)
      .purge(
        { entryId: body.entry_id, purgedBy: c.get('principal').keyId },
        writeOptions(c, c.req.valid('header')[IDEMPOTENCY_KEY_HEADER]),
      );
    markReplayed(c, result);
    return c.json(
      {
        memory: toArtifactRef(result.memory),
        status: result.status,
        tombstone: toPurgeTombstone(result.tombstone),
      },
      200,
    );
  });

  app.openapi(changesRoute, async (c) => {
    const body = c.req.valid('json');
    authorize(c, body.scope_id, 'read');
    const page = await requireRuntime(options.runtime)
      .memory.forScope(body.scope_id)
      .changes(
        {
          ...(body.from_revision === undefined ? {} : { fromRevision: body.from_revision }),
          ...(body.to_revision === undefined ? {} : { toRevision: body.to_revision }),
          ...(body.cursor === undefined ? {} : { cursor: body.cursor }),
          ...(body.limit === undefined ? {} : { limit: body.limit }),
        },
        readOptions(body),
      );
    return c.json(
      {
        memory: toOptionalArtifactRef(page.memory),
        from_revision: page.fromRevision,
        to_revision: page.toRevision,
        changes: page.changes.map((change) => toChange(change, purgeView(c, body.scope_id))),
        ...(page.nextCursor === undefined ? {} : { next_cursor: page.nextCursor }),
      },
      200,
    );
  });
}

function entryWrite(result: {
  memory: Parameters<typeof toArtifactRef>[0];
  entry: { entryId: string; entryVersionId: string };
  status: 'created' | 'duplicate' | 'unchanged';
}) {
  return {
    memory: toArtifactRef(result.memory),
    entry_id: result.entry.entryId,
    entry_version_id: result.entry.entryVersionId,
    status: result.status,
  };
}

/** A request body is parsed JSON, so every value inside its metadata object is a JSON value. */
function asJson(metadata: Record<string, unknown>): Record<string, JsonValue> {
  return metadata as Record<string, JsonValue>;
}
