import { InvalidImportLineError } from '@powercontext/memory-core';
import type { Runtime } from '@powercontext/runtime';
import { buildRedactedExplain } from '../http/explain.js';
import { toApiError } from '../http/to-api-error.js';
import {
  PURGER_VIEW,
  toArtifactRef,
  toChange,
  toEntryVersion,
  toOptionalArtifactRef,
  toPurgedMarkers,
  toPurgeTombstone,
  toScopesRead,
  toScopeTombstone,
  toSearchHit,
} from '../http/wire.js';
import { importFailureJson, importFailureText } from './import-failure.js';
import type { MemoryArgs } from './memory-args.js';
import {
  changesText,
  entryText,
  entryWriteText,
  listText,
  printable,
  purgeText,
  reembedText,
  rememberText,
  searchText,
} from './memory-output.js';

// The memory operations themselves and how their failures are told, loaded by memory-command.ts once
// the arguments are checked (and the store's thread has started).

export async function execute(runtime: Runtime, args: MemoryArgs): Promise<{ json: unknown; text: string }> {
  // Loaded for `import` only: its entry schema is the HTTP API's, which loads Hono.
  if (args.command === 'import') return (await import('./import-command.js')).runImport(runtime, args);
  if (args.command === 'export') return (await import('./export-command.js')).runExport(runtime, args);
  if (args.command === 'reembed') {
    const scopes = args.scope === undefined ? await runtime.memory.scopes() : [args.scope];
    const counts: { scope_id: string; reembedded: number }[] = [];
    for (const scopeId of scopes)
      counts.push({ scope_id: scopeId, reembedded: await runtime.memory.reembed(scopeId) });
    const profile = runtime.capabilities().embeddingProfile.id;
    return { json: { embedding_profile: profile, scopes: counts }, text: reembedText(profile, counts) };
  }
  const memory = runtime.memory.forScope(args.scope);
  switch (args.command) {
    case 'remember': {
      const source =
        args.source === undefined
          ? {}
          : {
              sources: [
                { sourceId: args.source, ...(args.locator === undefined ? {} : { locator: args.locator }) },
              ],
            };
      const result = await memory.remember(
        {
          entries: args.texts.map((text) => ({
            text,
            ...(args.kind === undefined ? {} : { kind: args.kind }),
            ...source,
            ...(args.metadata === undefined ? {} : { metadata: args.metadata }),
            ...args.fields,
          })),
        },
        keyOf(args),
      );
      const body = {
        memory: toArtifactRef(result.memory),
        entries: result.entries.map((entry) => ({
          entry_id: entry.entryId,
          entry_version_id: entry.entryVersionId,
          status: entry.status,
        })),
      };
      return { json: body, text: replayNote(rememberText(args.scope, body), result) };
    }
    case 'search': {
      const request = {
        query: args.query,
        ...(args.limit === undefined ? {} : { limit: args.limit }),
        ...(args.mode === undefined ? {} : { mode: args.mode }),
        ...(args.filter === undefined ? {} : { filter: args.filter }),
      };
      const options = args.explain ? { explain: true } : {};
      const several = args.scopes.length > 1;
      const result = several
        ? await runtime.memory.search(args.scopes, request, options)
        : await memory.search(request, options);
      const body = {
        memory: toOptionalArtifactRef(result.memory),
        ...(several ? { scopes: toScopesRead(result.scopes) } : {}),
        mode: result.mode,
        hits: result.hits.map(toSearchHit),
      };
      if (!args.explain) return { json: body, text: searchText(args.scopes, body) };
      const explain = buildRedactedExplain(result, runtime.capabilities().retrievalPolicyId);
      return { json: { ...body, explain }, text: searchText(args.scopes, body, explain) };
    }
    case 'list': {
      const page = await memory.list({
        ...(args.state === undefined ? {} : { state: args.state }),
        ...(args.revision === undefined ? {} : { revision: args.revision }),
        ...(args.cursor === undefined ? {} : { cursor: args.cursor }),
        ...(args.limit === undefined ? {} : { limit: args.limit }),
        ...(args.filter === undefined ? {} : { filter: args.filter }),
        ...(args.order === undefined ? {} : { order: args.order }),
      });
      const body = {
        memory: toOptionalArtifactRef(page.memory),
        entries: page.entries.map(toEntryVersion),
        ...toPurgedMarkers(page.purged, PURGER_VIEW),
        total: page.total ?? 0,
        ...(page.nextCursor === undefined ? {} : { next_cursor: page.nextCursor }),
      };
      // The text says how many there are when the page is not all of them (the list's own total).
      const total = page.nextCursor === undefined ? undefined : body.total;
      return { json: body, text: listText(args.scope, args.state ?? 'active', body, total) };
    }
    case 'get': {
      const found = await memory.get({
        entryId: args.entry,
        ...(args.revision === undefined ? {} : { revision: args.revision }),
      });
      const body = { memory: toArtifactRef(found.memory), entry: toEntryVersion(found.entry) };
      return { json: body, text: entryText(body) };
    }
    case 'changes': {
      const page = await memory.changes({
        ...(args.fromRevision === undefined ? {} : { fromRevision: args.fromRevision }),
        ...(args.toRevision === undefined ? {} : { toRevision: args.toRevision }),
        ...(args.cursor === undefined ? {} : { cursor: args.cursor }),
        ...(args.limit === undefined ? {} : { limit: args.limit }),
      });
      const body = {
        memory: toOptionalArtifactRef(page.memory),
        from_revision: page.fromRevision,
        to_revision: page.toRevision,
        changes: page.changes.map((change) => toChange(change, PURGER_VIEW)),
        ...(page.nextCursor === undefined ? {} : { next_cursor: page.nextCursor }),
      };
      return { json: body, text: changesText(args.scope, body) };
    }
    case 'delete-scope': {
      // In process, the caller is the local user, as for purge.
      const result = await memory.deleteScope({ deletedBy: 'local' });
      const body = { status: result.status, tombstone: toScopeTombstone(result.tombstone, PURGER_VIEW) };
      const { tombstone } = body;
      const text =
        result.status === 'deleted'
          ? `Deleted scope "${printable(args.scope, { oneLine: true })}": ${tombstone.entries} entries erased at every revision (it had ${tombstone.revision} revisions); its reads and writes now fail with scope_purged`
          : `Scope "${printable(args.scope, { oneLine: true })}" was deleted already, at ${tombstone.deleted_at}`;
      return { json: body, text };
    }
    case 'purge': {
      // In process, the caller is the local user: the tombstone records it as `local`, as a keyless server does.
      const result = await memory.purge({ entryId: args.entry, purgedBy: 'local' }, keyOf(args));
      const body = {
        memory: toArtifactRef(result.memory),
        status: result.status,
        tombstone: toPurgeTombstone(result.tombstone),
      };
      return { json: body, text: replayNote(purgeText(body), result) };
    }
    case 'revise':
    case 'forget':
    case 'reactivate': {
      const written =
        args.command === 'forget'
          ? await memory.forget({ entryId: args.entry }, keyOf(args))
          : args.command === 'reactivate'
            ? await memory.reactivate({ entryId: args.entry }, keyOf(args))
            : await memory.revise(
                {
                  entryId: args.entry,
                  text: args.text,
                  ...(args.kind === undefined ? {} : { kind: args.kind }),
                  ...(args.metadata === undefined ? {} : { metadata: args.metadata }),
                  ...args.fields,
                },
                keyOf(args),
              );
      const body = {
        memory: toArtifactRef(written.memory),
        entry_id: written.entry.entryId,
        entry_version_id: written.entry.entryVersionId,
        status: written.status,
      };
      return { json: body, text: replayNote(entryWriteText(args.command, body), written) };
    }
  }
}

/** The write options of a command given --idempotency-key. */
function keyOf(args: { idempotencyKey?: string }): { idempotencyKey?: string } {
  return args.idempotencyKey === undefined ? {} : { idempotencyKey: args.idempotencyKey };
}

/** The text of a write, saying so when it is the stored first result of its idempotency key. */
function replayNote(text: string, result: { replayed?: true }): string {
  return result.replayed
    ? `${text}\n(replayed: the first result of this --idempotency-key; nothing was written now)`
    : text;
}

/** The flag that sets a request field, e.g. `entries.0.sources.0.source_id` -> `--source`. */
const FIELD_FLAGS: Record<string, string> = {
  scope_id: '--scope',
  entry_id: '--entry',
  source_id: '--source',
  query: '--query',
  limit: '--limit',
  mode: '--mode',
  state: '--state',
  revision: '--revision',
  from_revision: '--from-revision',
  to_revision: '--to-revision',
  cursor: '--cursor',
  text: '--text',
  kind: '--kind',
  metadata: '--metadata',
  locator: '--locator',
};

function flagOf(field: string): string {
  const names = field.split('.').filter((part) => !/^\d+$/.test(part));
  // The first named segment (e.g. `metadata` of `metadata.team`), else the last (`text` of `entries.0.text`).
  const known = names.find(
    (name) => name !== 'entries' && name !== 'sources' && FIELD_FLAGS[name] !== undefined,
  );
  return known ? FIELD_FLAGS[known]! : field;
}

export function reportFailure(error: unknown, args: MemoryArgs): number {
  if (error instanceof InvalidImportLineError) {
    if (args.json) console.error(JSON.stringify(importFailureJson(error)));
    else for (const line of importFailureText(error)) console.error(line);
    return 2;
  }
  // The local user may purge: errors say who purged, as the command's own answers do.
  const apiError = toApiError(error, PURGER_VIEW);
  const exitCode = apiError.code === 'invalid_request' ? 2 : 1;
  if (args.json) {
    console.error(JSON.stringify(apiError.body()));
    return exitCode;
  }
  const issues = apiError.details?.issues;
  if (apiError.code === 'invalid_request' && issues && issues.length > 0) {
    for (const issue of issues) console.error(`${flagOf(issue.field)}: ${issue.rule}`);
    return exitCode;
  }
  // Locally, an unexpected failure is shown as it is: the person at the terminal owns the process.
  const message =
    apiError.code === 'internal_error' && error instanceof Error ? error.message : apiError.message;
  console.error(
    `error ${apiError.code}: ${message}${apiError.retryable ? ' (retrying later may succeed)' : ''}`,
  );
  return exitCode;
}
