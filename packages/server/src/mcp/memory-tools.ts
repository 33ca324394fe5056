import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ReadGate, Runtime, RuntimeConfig, ScopedMemory, WriteOptions } from '@powercontext/runtime';
import type { z } from 'zod';
import {
  decideAccess,
  idempotencyOwnerOf,
  mayReadPurgedBy,
  type Permission,
  type Principal,
} from '../auth/principal.js';
import { scopesOf } from '../auth/scopes-of.js';
import type { StartedWrite } from '../http/app-env.js';
import { toContractInput, toPreparedContext } from '../http/context-wire.js';
import type { ScopeTargetsBody } from '../http/schemas/scope-targets.js';
import {
  fromWireRememberEntry,
  type PurgeView,
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
import { wireFilterPart } from '../http/wire-filter.js';
import { advertisedOutput } from './advertised-output.js';
import { type ScopeReads, scopeReadsOf, scopesDenied } from './scope-reads.js';
import { SERVER_INSTRUCTIONS, searchDescription, TOOL_DESCRIPTIONS } from './tool-descriptions.js';
import { accessDeniedError, toToolError } from './tool-error.js';
import { compactToolList } from './tool-list.js';
import {
  acceptEveryInputAsToolError,
  errorResult,
  jsonObject,
  jsonResult,
  writeResult,
} from './tool-results.js';
import {
  changesInput,
  changesOutput,
  deleteScopeInput,
  deleteScopeOutput,
  entryWriteOutput,
  forgetInput,
  getInput,
  getOutput,
  listInput,
  listOutput,
  prepareContextInput,
  prepareContextOutput,
  purgeOutput,
  rememberInput,
  rememberOutput,
  replicaMinRevision,
  reviseInput,
  scopesInput,
  scopesOutput,
  searchInput,
  searchOutput,
} from './tool-schemas.js';

export interface MemoryMcpServerOptions {
  /**
   * `capabilities` tells search_memory's description what the embedder finds, `config` whether reads
   * go to replicas (min_revision is described where it matters); tests may omit both.
   */
  runtime: Pick<Runtime, 'memory'> & Partial<Pick<Runtime, 'capabilities' | 'config'>>;
  principal: Principal;
  /** Told about failures that are not our typed errors (they reach the caller as `internal_error`). */
  onInternalError?: (error: unknown, tool: string) => void;
  /** Reported to clients in the initialize handshake. */
  version?: string;
  /**
   * Called before each tool call: charges it to the caller's rate limit and takes an in-flight slot,
   * returning the release. A throw (`rate_limited`) makes that call an `isError` result; other calls
   * of the same batch are charged on their own.
   */
  admitToolCall?: () => (() => void) | Promise<() => void>;
  /**
   * Runs search_memory's or prepare_context's work in one of the server's search lanes (HTTP only;
   * stdio serves one client), once the call's min_revision is visible. Rejects with the signal's reason
   * if it aborts before a lane is free.
   */
  inSearchLane?: <T>(signal: AbortSignal, work: () => Promise<T>) => Promise<T>;
  /** The HTTP request's signal: its timeout abandons writes that have not begun their transaction. */
  signal?: AbortSignal;
  /** Told when a tool's write begins its transaction: from then on it may commit. */
  onWriteBegin?: (write: StartedWrite) => void;
}

/**
 * An MCP server whose tools are the memory operations a model may call (the names of the runtime's
 * MODEL_CALLABLE_TOOLS). There is no decision or rerank tool: reranking and write gating are runtime
 * steps a model must not drive (RFC 0004). Every tool checks the principal for its scope first;
 * failures come back as `isError` results holding a ToolError as JSON.
 */
export function createMemoryMcpServer(options: MemoryMcpServerOptions): McpServer {
  const { runtime, principal } = options;
  const server = new McpServer(
    { name: 'powercontext-memory', version: options.version ?? '0.1.0' },
    {
      instructions: SERVER_INSTRUCTIONS,
    },
  );

  acceptEveryInputAsToolError(server);
  compactToolList(server);

  // Read tools' min_revision says what a lagging replica does only on a server that has replicas.
  const replicated = readsFromReplicas(runtime.config);
  const readInput = <Shape extends z.ZodRawShape>(schema: z.ZodObject<Shape>) =>
    replicated ? schema.extend({ min_revision: replicaMinRevision }) : schema;

  /**
   * Runs one tool call: charged to the caller first (a token of its rate limit and an in-flight slot,
   * held until the call ends), then `body`; a failure becomes an `isError` result. Every tool runs
   * through here, so each tool call costs the same and the handshake and tool listing cost nothing.
   */
  async function admitted(
    tool: string,
    body: () => Promise<CallToolResult>,
    view: PurgeView = { purgedBy: false },
  ): Promise<CallToolResult> {
    let release: () => void;
    try {
      release = (await options.admitToolCall?.()) ?? (() => {});
    } catch (error) {
      return errorResult(toToolError(error));
    }
    try {
      return await body();
    } catch (error) {
      const toolError = toToolError(error, view);
      if (toolError.code === 'internal_error') options.onInternalError?.(error, tool);
      return errorResult(toolError);
    } finally {
      release();
    }
  }

  /**
   * Runs one memory tool call as `principal`: access check, the operation, then the result or error.
   * The result is the JSON as structured content and as text, unless `present` shapes it otherwise.
   */
  function call<Result extends Record<string, unknown>>(
    tool: string,
    scopeId: string,
    permission: Permission,
    operation: (memory: ScopedMemory) => Promise<Result>,
    present: (result: Result) => CallToolResult = jsonResult,
  ): Promise<CallToolResult> {
    return admitted(
      tool,
      async () => {
        const decision = decideAccess(principal, scopeId, permission);
        if (decision !== 'allowed') return errorResult(accessDeniedError(decision, scopeId, permission));
        return present(await operation(runtime.memory.forScope(scopeId)));
      },
      purgeViewIn(scopeId),
    );
  }

  /**
   * Runs search_memory or prepare_context as `principal`: the scope arguments' rules, the read
   * permission on every scope named (the first one it lacks is the error), the operation.
   */
  function readCall<Result extends Record<string, unknown>>(
    tool: string,
    input: ScopeTargetsBody,
    operation: (reads: ScopeReads) => Promise<Result>,
    present: (result: Result) => CallToolResult = jsonResult,
  ): Promise<CallToolResult> {
    return admitted(tool, async () => {
      const reads = scopeReadsOf(runtime, input);
      const denied = scopesDenied(principal, reads.scopeIds, 'read');
      if (denied) return errorResult(denied);
      return present(await operation(reads));
    });
  }

  /** What this caller may see of a purge in the scope: who purged only with the purge permission there. */
  function purgeViewIn(scopeId: string): PurgeView {
    return { purgedBy: mayReadPurgedBy(principal, scopeId) };
  }

  /**
   * The read option that runs a search or a preparation in a search lane, when the server has lanes;
   * the runtime takes it once the call's min_revision is visible, so a wait for it holds no lane.
   */
  function searchLane(signal: AbortSignal): { gate?: ReadGate } {
    const inLane = options.inSearchLane;
    if (!inLane) return {};
    const stop = options.signal ? AbortSignal.any([signal, options.signal]) : signal;
    return { gate: (work) => inLane(stop, work) };
  }

  /** How a write tool runs its write: its key (kept per API key), stopped by the call's and the request's signals until it begins. */
  function writeOptions(idempotencyKey: string | undefined, signal: AbortSignal): WriteOptions {
    return {
      ...(idempotencyKey === undefined ? {} : { idempotencyKey, ...idempotencyOwnerOf(principal) }),
      signal: options.signal ? AbortSignal.any([signal, options.signal]) : signal,
      onTransactionBegin: (progress) => options.onWriteBegin?.({ ...progress, idempotencyKey }),
    };
  }

  server.registerTool(
    'search_memory',
    {
      title: 'Search memory',
      description: searchDescription(runtime.capabilities?.().embeddingProfile),
      inputSchema: readInput(searchInput),
      outputSchema: advertisedOutput(searchOutput),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input, extra) =>
      readCall('search_memory', input, async (reads) => {
        // A cancelled call (or a closed HTTP request) also cancels a running rerank.
        const result = await reads.search(
          {
            query: input.query,
            ...(input.limit === undefined ? {} : { limit: input.limit }),
            ...(input.mode === undefined ? {} : { mode: input.mode }),
            ...wireFilterPart(input.filter),
          },
          { signal: extra.signal, ...searchLane(extra.signal) },
        );
        return {
          memory: toOptionalArtifactRef(result.memory),
          ...(reads.several ? { scopes: toScopesRead(result.scopes) } : {}),
          mode: result.mode,
          hits: result.hits.map(toSearchHit),
          ...(result.lexicalFallback
            ? {
                lexical_fallback: {
                  reason: result.lexicalFallback.reason,
                  query_term_count: result.lexicalFallback.queryTermCount,
                  admitted: result.lexicalFallback.admitted,
                },
              }
            : {}),
        };
      }),
  );

  server.registerTool(
    'remember_memory',
    {
      title: 'Remember',
      description: TOOL_DESCRIPTIONS.remember_memory,
      inputSchema: rememberInput,
      outputSchema: advertisedOutput(rememberOutput),
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    (input, extra) =>
      call(
        'remember_memory',
        input.scope_id,
        'write',
        async (memory) => {
          const result = await memory.remember(
            { entries: input.entries.map(fromWireRememberEntry) },
            writeOptions(input.idempotency_key, extra.signal),
          );
          return {
            wire: {
              memory: toArtifactRef(result.memory),
              entries: result.entries.map((entry) => ({
                entry_id: entry.entryId,
                entry_version_id: entry.entryVersionId,
                status: entry.status,
              })),
            },
            replayed: result.replayed === true,
          };
        },
        writeResult,
      ),
  );

  server.registerTool(
    'list_memory_entries',
    {
      title: 'List memory entries',
      description: TOOL_DESCRIPTIONS.list_memory_entries,
      inputSchema: readInput(listInput),
      outputSchema: advertisedOutput(listOutput),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) =>
      call('list_memory_entries', input.scope_id, 'read', async (memory) => {
        const page = await memory.list(
          {
            ...(input.state === undefined ? {} : { state: input.state }),
            ...(input.revision === undefined ? {} : { revision: input.revision }),
            ...(input.cursor === undefined ? {} : { cursor: input.cursor }),
            ...(input.limit === undefined ? {} : { limit: input.limit }),
            ...(input.order === undefined ? {} : { order: input.order }),
            ...(input.text === undefined ? {} : { text: input.text }),
            ...wireFilterPart(input.filter),
          },
          readOf(input),
        );
        return {
          memory: toOptionalArtifactRef(page.memory),
          entries: page.entries.map(toEntryVersion),
          ...toPurgedMarkers(page.purged, purgeViewIn(input.scope_id)),
          total: page.total ?? 0,
          ...(page.nextCursor === undefined ? {} : { next_cursor: page.nextCursor }),
        };
      }),
  );

  server.registerTool(
    'get_memory_entry',
    {
      title: 'Get a memory entry',
      description: TOOL_DESCRIPTIONS.get_memory_entry,
      inputSchema: readInput(getInput),
      outputSchema: advertisedOutput(getOutput),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) =>
      call('get_memory_entry', input.scope_id, 'read', async (memory) => {
        const found = await memory.get(
          {
            entryId: input.entry_id,
            ...(input.revision === undefined ? {} : { revision: input.revision }),
          },
          readOf(input),
        );
        return { memory: toArtifactRef(found.memory), entry: toEntryVersion(found.entry) };
      }),
  );

  server.registerTool(
    'revise_memory_entry',
    {
      title: 'Revise a memory entry',
      description: TOOL_DESCRIPTIONS.revise_memory_entry,
      inputSchema: reviseInput,
      outputSchema: advertisedOutput(entryWriteOutput),
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    (input, extra) =>
      call(
        'revise_memory_entry',
        input.scope_id,
        'write',
        async (memory) =>
          entryWriteResult(
            await memory.revise(
              {
                entryId: input.entry_id,
                text: input.text,
                ...(input.kind === undefined ? {} : { kind: input.kind }),
                ...(input.metadata === undefined ? {} : { metadata: jsonObject(input.metadata) }),
                ...(input.tags === undefined ? {} : { tags: input.tags }),
                ...(input.pinned === undefined ? {} : { pinned: input.pinned }),
                ...(input.occurred_at === undefined ? {} : { occurredAt: input.occurred_at }),
              },
              writeOptions(input.idempotency_key, extra.signal),
            ),
          ),
        writeResult,
      ),
  );

  server.registerTool(
    'forget_memory_entry',
    {
      title: 'Forget a memory entry',
      description: TOOL_DESCRIPTIONS.forget_memory_entry,
      inputSchema: forgetInput,
      outputSchema: advertisedOutput(entryWriteOutput),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    (input, extra) =>
      call(
        'forget_memory_entry',
        input.scope_id,
        'write',
        async (memory) =>
          entryWriteResult(
            await memory.forget(
              { entryId: input.entry_id },
              writeOptions(input.idempotency_key, extra.signal),
            ),
          ),
        writeResult,
      ),
  );

  server.registerTool(
    'reactivate_memory_entry',
    {
      title: 'Reactivate a memory entry',
      description: TOOL_DESCRIPTIONS.reactivate_memory_entry,
      inputSchema: forgetInput,
      outputSchema: advertisedOutput(entryWriteOutput),
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    (input, extra) =>
      call(
        'reactivate_memory_entry',
        input.scope_id,
        'write',
        async (memory) =>
          entryWriteResult(
            await memory.reactivate(
              { entryId: input.entry_id },
              writeOptions(input.idempotency_key, extra.signal),
            ),
          ),
        writeResult,
      ),
  );

  server.registerTool(
    'purge_memory_entry',
    {
      title: 'Purge a memory entry',
      description: TOOL_DESCRIPTIONS.purge_memory_entry,
      inputSchema: forgetInput,
      outputSchema: advertisedOutput(purgeOutput),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    (input, extra) =>
      call(
        'purge_memory_entry',
        input.scope_id,
        'purge',
        async (memory) => {
          const result = await memory.purge(
            { entryId: input.entry_id, purgedBy: principal.keyId },
            writeOptions(input.idempotency_key, extra.signal),
          );
          return {
            wire: {
              memory: toArtifactRef(result.memory),
              status: result.status,
              tombstone: toPurgeTombstone(result.tombstone),
            },
            replayed: result.replayed === true,
          };
        },
        writeResult,
      ),
  );

  server.registerTool(
    'delete_scope',
    {
      title: 'Delete a scope',
      description: TOOL_DESCRIPTIONS.delete_scope,
      inputSchema: deleteScopeInput,
      outputSchema: advertisedOutput(deleteScopeOutput),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    (input) =>
      call('delete_scope', input.scope_id, 'purge', async (memory) => {
        const result = await memory.deleteScope({ deletedBy: principal.keyId });
        return {
          status: result.status,
          tombstone: toScopeTombstone(result.tombstone, purgeViewIn(input.scope_id)),
        };
      }),
  );

  server.registerTool(
    'list_memory_changes',
    {
      title: 'List memory changes',
      description: TOOL_DESCRIPTIONS.list_memory_changes,
      inputSchema: readInput(changesInput),
      outputSchema: advertisedOutput(changesOutput),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) =>
      call('list_memory_changes', input.scope_id, 'read', async (memory) => {
        const page = await memory.changes(
          {
            ...(input.from_revision === undefined ? {} : { fromRevision: input.from_revision }),
            ...(input.to_revision === undefined ? {} : { toRevision: input.to_revision }),
            ...(input.cursor === undefined ? {} : { cursor: input.cursor }),
            ...(input.limit === undefined ? {} : { limit: input.limit }),
          },
          readOf(input),
        );
        return {
          memory: toOptionalArtifactRef(page.memory),
          from_revision: page.fromRevision,
          to_revision: page.toRevision,
          changes: page.changes.map((change) => toChange(change, purgeViewIn(input.scope_id))),
          ...(page.nextCursor === undefined ? {} : { next_cursor: page.nextCursor }),
        };
      }),
  );

  server.registerTool(
    'list_scopes',
    {
      title: 'List my scopes',
      description: TOOL_DESCRIPTIONS.list_scopes,
      inputSchema: scopesInput,
      outputSchema: advertisedOutput(scopesOutput),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () => admitted('list_scopes', async () => jsonResult({ ...(await scopesOf(principal, runtime)) })),
  );

  server.registerTool(
    'prepare_context',
    {
      title: 'Prepare context',
      description: TOOL_DESCRIPTIONS.prepare_context,
      inputSchema: readInput(prepareContextInput),
      outputSchema: advertisedOutput(prepareContextOutput),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input, extra) =>
      readCall(
        'prepare_context',
        input,
        async (reads) => {
          const contract = toContractInput(input.contract);
          const prepared = await reads.prepareContext(
            {
              query: input.query,
              ...(input.limit === undefined ? {} : { limit: input.limit }),
              ...(input.mode === undefined ? {} : { mode: input.mode }),
              ...wireFilterPart(input.filter),
              ...(contract === undefined ? {} : { contract }),
            },
            { signal: extra.signal, ...searchLane(extra.signal) },
          );
          return toPreparedContext(prepared, reads.several);
        },
        // The framed context is what a model reads; the report beside it is data for the caller.
        ({ context, ...report }) => ({
          content: [{ type: 'text', text: context }],
          structuredContent: report,
        }),
      ),
  );

  return server;
}

function entryWriteResult(written: Awaited<ReturnType<ScopedMemory['revise']>>) {
  return {
    wire: {
      memory: toArtifactRef(written.memory),
      entry_id: written.entry.entryId,
      entry_version_id: written.entry.entryVersionId,
      status: written.status,
    },
    replayed: written.replayed === true,
  };
}

/** A read tool's `min_revision`, as the runtime's read option. */
function readOf(input: { min_revision?: number | undefined }): { minRevision?: number } {
  return input.min_revision === undefined ? {} : { minRevision: input.min_revision };
}

/** Whether the server's reads go to streaming replicas (POWERCONTEXT_SERVER_READ_DATABASE_URL). */
function readsFromReplicas(config: RuntimeConfig | undefined): boolean {
  return config?.store.kind === 'postgres' && config.store.readConnectionStrings.length > 0;
}

export { searchDescription } from './tool-descriptions.js';
export { IDEMPOTENT_REPLAYED_META, invalidInputError } from './tool-results.js';
