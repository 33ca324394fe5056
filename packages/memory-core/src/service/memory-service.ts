import { randomUUID } from 'node:crypto';
import { resolveSearchChannels } from '../channels/search-channels.js';
import { type EntryPage, listEntries } from './list-entries.js';

export type { EntryPage };

import { canonicalJson } from '../domain/canonical-json.js';
import { contentHash } from '../domain/content-hash.js';
import { changesCursorSchema, decodeCursor, encodeCursor } from '../domain/cursor.js';
import {
  IDEMPOTENCY_RETENTION_DEFAULT_SECONDS,
  idempotencyKeySchema,
  idempotencyOwnerSchema,
} from '../domain/idempotency.js';
import {
  type EntryTarget,
  type EntryVersion,
  entryTargetSchema,
  type RememberRequest,
  type ReviseRequest,
  rememberRequestSchema,
  reviseRequestSchema,
} from '../domain/memory-entry.js';
import { type Citation, citationSchema, type MemoryRef } from '../domain/memory-ref.js';
import { parseInput } from '../domain/parse-input.js';
import {
  type PurgedChange,
  type PurgeInfo,
  type PurgeRequest,
  type PurgeResult,
  purgedVersionAt,
  purgeInfoOf,
  purgeRequestSchema,
} from '../domain/purge.js';
import {
  type GetEntryRequest,
  getEntryRequestSchema,
  type ListChangesRequest,
  type ListEntriesRequest,
  listChangesRequestSchema,
} from '../domain/read-requests.js';
import type { DeleteScopeRequest, DeleteScopeResult } from '../domain/scope-deletion.js';
import {
  type ChannelName,
  type MultiScopeRerank,
  type SearchMemoryRequest,
  type SearchResult,
  searchScopeIdsSchema,
} from '../domain/search.js';
import { scopeIdSchema } from '../domain/text-rules.js';
import { EntryPurgedError } from '../errors/entry-purged-error.js';
import { InvalidCitationError } from '../errors/invalid-citation-error.js';
import { NotFoundError } from '../errors/not-found-error.js';
import { RevisionConflictError } from '../errors/revision-conflict-error.js';
import { ValidationError } from '../errors/validation-error.js';
import type { Embedder } from '../ports/embedder.port.js';
import { type Logger, noopLogger } from '../ports/logger.port.js';
import type {
  MemoryStore,
  MemoryWriteTransaction,
  NewEntryVersion,
  RevisionChange,
} from '../ports/memory-store.port.js';
import type { RetrievalPolicy } from '../ports/retrieval-policy.port.js';
import type { SearchChannel } from '../ports/search-channel.port.js';
import type { SearchObserver } from '../ports/search-observer.port.js';
import type { WriteAdvice, WriteAdvisor } from '../ports/write-advisor.port.js';
import type { RerankStage } from '../rerank/rerank-stage.js';
import {
  type IdempotencyKeyOf,
  IdempotencyLedger,
  importBatchKey,
  type KeyedWrite,
  type WriteOptions,
} from './idempotency-ledger.js';
import {
  type ImportOptions,
  type ImportRecord,
  type ImportSummary,
  importEntries,
} from './import-entries.js';
import { KeyedMutex } from './keyed-mutex.js';
import { mergeByKey } from './merge-by-key.js';
import { deleteScope, type ExportRequest, type MemoryExport, openExport } from './scope-lifecycle.js';
import { type SearchDependencies, type SearchOptions, searchMemory } from './search-memory.js';

export interface MemoryServiceOptions {
  store: MemoryStore;
  embedder: Embedder;
  retrievalPolicy: RetrievalPolicy;
  /**
   * Search channels of the application's own (RFC 0013), beside the store's built-in ones (`fts`,
   * `vector`, `entity`, `graph`); one named like a built-in replaces it. The policy's `channels` decides
   * which of them run: the service refuses a channel the policy does not fuse, and a name the policy
   * fuses that no channel implements.
   */
  searchChannels?: readonly SearchChannel[];
  logger?: Logger;
  /** Total attempts of a write whose compare-and-swap lost to another process. Default 3. */
  maxWriteAttempts?: number;
  /** The optional rerank stage (RFC 0080 steps 6-8). Absent: search returns the coarse path unchanged. */
  rerankStage?: RerankStage;
  /**
   * Whether a search of several scopes (`searchScopes`) runs the rerank stage on the fused pool
   * (`rerank`) or returns the fused order (`skip`, the default, like seed 003's global queries).
   */
  multiScopeRerank?: MultiScopeRerank;
  observer?: SearchObserver;
  /** Optional advisory check of new entries before the write; its failures never block a write. */
  writeAdvisor?: WriteAdvisor;
  /** How long a write's idempotency key is kept, in milliseconds. Default 24 hours. */
  idempotencyRetentionMs?: number;
  /** The time idempotency records are written and expired by. Default: the system clock. */
  clock?: () => Date;
}

export type EntryWriteStatus = 'created' | 'duplicate' | 'unchanged';

export interface RememberResult {
  memory: MemoryRef;
  entries: { entryId: string; entryVersionId: string; status: EntryWriteStatus }[];
  /** Present only with an advisory-mode write advisor. */
  advice?: WriteAdvice[];
  /** Set when this is the stored result of an earlier write with the same idempotency key. */
  replayed?: true;
}

export interface EntryWriteResult {
  memory: MemoryRef;
  entry: EntryVersion;
  status: EntryWriteStatus;
  /** Set when this is the stored result of an earlier write with the same idempotency key. */
  replayed?: true;
}

export interface ChangesPage {
  memory: MemoryRef | undefined;
  fromRevision: number;
  toRevision: number;
  /** Oldest first; a version a purge erased, and the purge itself, come as a PurgedChange. */
  changes: (RevisionChange | PurgedChange)[];
  nextCursor?: string;
}

/** A citation whose version is still stored. */
export interface ValidCitation {
  status: 'valid';
  memory: MemoryRef;
  entry: EntryVersion;
  /** False when a later revision superseded or forgot the cited version; the citation stays valid. */
  currentAtHead: boolean;
}

/** A citation that was valid, but whose entry a later purge erased: its evidence is gone. */
export interface PurgedCitation {
  status: 'purged';
  memory: MemoryRef;
  entryId: string;
  entryVersionId: string;
  purge: PurgeInfo;
}

export type ResolvedCitation = ValidCitation | PurgedCitation;

/**
 * The Memory model's operations for every scope: writes with compare-and-swap on the scope head,
 * cursor-paginated reads pinned to one revision, citation checks, and hybrid search.
 */
export class MemoryService {
  readonly #store: MemoryStore;
  readonly #embedder: Embedder;
  readonly #policy: RetrievalPolicy;
  readonly #channels: ReadonlyMap<ChannelName, SearchChannel>;
  readonly #logger: Logger;
  readonly #maxWriteAttempts: number;
  readonly #locks = new KeyedMutex();
  readonly #rerankStage: RerankStage | undefined;
  readonly #multiScopeRerank: MultiScopeRerank;
  readonly #observer: SearchObserver | undefined;
  readonly #writeAdvisor: WriteAdvisor | undefined;
  readonly #ledger: IdempotencyLedger;

  constructor(options: MemoryServiceOptions) {
    this.#store = options.store;
    this.#embedder = options.embedder;
    this.#policy = options.retrievalPolicy;
    this.#channels = resolveSearchChannels(options.store, options.retrievalPolicy, options.searchChannels);
    this.#logger = options.logger ?? noopLogger;
    this.#maxWriteAttempts = options.maxWriteAttempts ?? 3;
    this.#rerankStage = options.rerankStage;
    this.#multiScopeRerank = options.multiScopeRerank ?? 'skip';
    this.#observer = options.observer;
    this.#writeAdvisor = options.writeAdvisor;
    const retentionMs = options.idempotencyRetentionMs ?? IDEMPOTENCY_RETENTION_DEFAULT_SECONDS * 1000;
    if (!Number.isFinite(retentionMs) || retentionMs <= 0) {
      throw new RangeError('idempotencyRetentionMs must be a positive number of milliseconds');
    }
    this.#ledger = new IdempotencyLedger(options.store, options.clock ?? (() => new Date()), retentionMs);
  }

  get rerankStage(): RerankStage | undefined {
    return this.#rerankStage;
  }

  get embeddingProfile() {
    return this.#embedder.profile;
  }

  get retrievalPolicy() {
    return this.#policy;
  }

  /** The channels a search runs (those its mode allows), in the policy's fusion order. */
  get searchChannels(): SearchChannel[] {
    return [...this.#channels.values()];
  }

  get #projection() {
    return this.#policy.lexicalProjection;
  }

  /**
   * Adds entries as one new revision; an entry equal to an active one (same kind and text) comes back
   * as a duplicate. With `options.idempotencyKey`, a repeat of the same request returns this result.
   */
  async remember(
    scopeId: string,
    request: RememberRequest,
    options: WriteOptions = {},
  ): Promise<RememberResult> {
    const scope = parseInput(scopeIdSchema, scopeId, 'scopeId');
    return this.#remember(scope, request, options, this.#keyOf(options));
  }

  async #remember(
    scope: string,
    request: RememberRequest,
    options: WriteOptions,
    key: IdempotencyKeyOf | undefined,
  ): Promise<RememberResult> {
    const { entries } = parseInput(rememberRequestSchema, request);
    const keyed = this.#ledger.keyed('remember', { entries }, key);
    const replayed = await this.#ledger.replay<RememberResult>(scope, keyed);
    if (replayed) return replayed;
    const prepared = entries.map((entry) => ({ ...entry, contentHash: contentHash(entry.kind, entry.text) }));
    const [vectors, advice] = await Promise.all([
      this.#embedForIndex(
        scope,
        prepared.map((entry) => entry.text),
        options.signal,
      ),
      this.#advise(scope, prepared),
    ]);
    // The advice is part of the result, so a replay answers with it too.
    const shown = advice && this.#writeAdvisor?.mode === 'advisory' ? { advice } : {};

    return this.#mutate(
      scope,
      async (tx, head): Promise<RememberResult> => {
        const existing = await tx.findActiveByContentHash([
          ...new Set(prepared.map((entry) => entry.contentHash)),
        ]);
        const results: RememberResult['entries'] = [];
        const created: NewEntryVersion[] = [];
        const inBatch = new Map<string, NewEntryVersion>();
        prepared.forEach((entry, index) => {
          const duplicate = existing.get(entry.contentHash) ?? inBatch.get(entry.contentHash);
          if (duplicate) {
            results.push({
              entryId: duplicate.entryId,
              entryVersionId: duplicate.entryVersionId,
              status: 'duplicate',
            });
            return;
          }
          const vector = vectors[index];
          const version: NewEntryVersion = {
            entryId: randomUUID(),
            entryVersionId: randomUUID(),
            version: 1,
            previousVersionId: null,
            kind: entry.kind,
            text: entry.text,
            contentHash: entry.contentHash,
            sources: entry.sources,
            position: entry.position ?? null,
            metadata: entry.metadata,
            tags: entry.tags,
            pinned: entry.pinned,
            occurredAt: entry.occurredAt ?? null,
            state: 'active',
            ...(vector ? { embedding: { profileId: this.#embedder.profile.id, vector } } : {}),
          };
          inBatch.set(entry.contentHash, version);
          created.push(version);
          results.push({
            entryId: version.entryId,
            entryVersionId: version.entryVersionId,
            status: 'created',
          });
        });
        const memory =
          created.length > 0 ? (await tx.appendRevision('remember', created, this.#projection)).memory : head;
        if (!memory) throw new Error('unreachable: duplicates found in a scope that was never written');
        return { memory, entries: results, ...shown };
      },
      options,
      keyed,
    );
  }

  /**
   * Streams entries into a scope in batches of `remember` (one revision per batch), each batch checked
   * completely before any of it is written. Safe to re-run after an interruption: what was stored is
   * found again as duplicates. See importEntries.
   */
  async import(
    scopeId: string,
    records: AsyncIterable<ImportRecord> | Iterable<ImportRecord>,
    options: ImportOptions = {},
  ): Promise<ImportSummary> {
    const scope = parseInput(scopeIdSchema, scopeId, 'scopeId');
    const key = this.#keyOf(options);
    return importEntries(
      (entries, batch) =>
        this.#remember(
          scope,
          { entries },
          {},
          key === undefined ? undefined : { key: importBatchKey(key.key, batch) },
        ),
      records,
      options,
    );
  }

  /** Runs the write advisor outside any lock; whatever happens, the write goes on. */
  async #advise(scopeId: string, entries: readonly { text: string; kind: string }[]) {
    const advisor = this.#writeAdvisor;
    if (!advisor) return undefined;
    try {
      const advice = await advisor.review(scopeId, entries);
      for (const item of advice) {
        this.#logger.info('memory.write_advice', {
          scopeId,
          mode: advisor.mode,
          decisionKind: item.decisionKind,
          policyId: item.policyId,
          outcome: item.outcome,
          usedFallback: item.usedFallback,
          entryIndex: item.entryIndex,
          comparedEntryIds: item.comparedEntryIds.join(','),
        });
      }
      return advice;
    } catch (error) {
      this.#logger.warn('memory.write_advice.failed', {
        scopeId,
        reason: error instanceof Error ? error.name : 'unknown',
      });
      return undefined;
    }
  }

  async revise(
    scopeId: string,
    request: ReviseRequest,
    options: WriteOptions = {},
  ): Promise<EntryWriteResult> {
    const scope = parseInput(scopeIdSchema, scopeId, 'scopeId');
    const input = parseInput(reviseRequestSchema, request);
    const keyed = this.#ledger.keyed('revise', input, this.#keyOf(options));
    const replayed = await this.#ledger.replay<EntryWriteResult>(scope, keyed);
    if (replayed) return replayed;
    const [vector] = await this.#embedForIndex(scope, [input.text], options.signal);
    return this.#mutate(
      scope,
      async (tx, head): Promise<EntryWriteResult> => {
        const current = await this.#requireCurrent(tx, input.entryId);
        const kind = input.kind ?? current.kind;
        const metadata = input.metadata ?? current.metadata;
        const fields = {
          tags: input.tags ?? current.tags,
          pinned: input.pinned ?? current.pinned,
          occurredAt: input.occurredAt === undefined ? current.occurredAt : input.occurredAt,
        };
        const hash = contentHash(kind, input.text);
        if (
          hash === current.contentHash &&
          canonicalJson(metadata) === canonicalJson(current.metadata) &&
          canonicalJson(fields) ===
            canonicalJson({ tags: current.tags, pinned: current.pinned, occurredAt: current.occurredAt })
        ) {
          return { memory: head!, entry: current, status: 'unchanged' as const };
        }
        const next = this.#nextVersion(current, {
          kind,
          text: input.text,
          contentHash: hash,
          metadata,
          ...fields,
        });
        if (vector && next.state === 'active')
          next.embedding = { profileId: this.#embedder.profile.id, vector };
        const { memory, versions } = await tx.appendRevision('revise', [next], this.#projection);
        return { memory, entry: versions[0]!, status: 'created' as const };
      },
      options,
      keyed,
    );
  }

  async forget(scopeId: string, request: EntryTarget, options: WriteOptions = {}): Promise<EntryWriteResult> {
    const scope = parseInput(scopeIdSchema, scopeId, 'scopeId');
    const { entryId } = parseInput(entryTargetSchema, request);
    const keyed = this.#ledger.keyed('forget', { entryId }, this.#keyOf(options));
    const replayed = await this.#ledger.replay<EntryWriteResult>(scope, keyed);
    if (replayed) return replayed;
    return this.#mutate(
      scope,
      async (tx, head): Promise<EntryWriteResult> => {
        const current = await this.#requireCurrent(tx, entryId);
        if (current.state === 'inactive')
          return { memory: head!, entry: current, status: 'unchanged' as const };
        const next = this.#nextVersion(current, { state: 'inactive' });
        const { memory, versions } = await tx.appendRevision('forget', [next], this.#projection);
        return { memory, entry: versions[0]!, status: 'created' as const };
      },
      options,
      keyed,
    );
  }

  async reactivate(
    scopeId: string,
    request: EntryTarget,
    options: WriteOptions = {},
  ): Promise<EntryWriteResult> {
    const scope = parseInput(scopeIdSchema, scopeId, 'scopeId');
    const { entryId } = parseInput(entryTargetSchema, request);
    const keyed = this.#ledger.keyed('reactivate', { entryId }, this.#keyOf(options));
    const replayed = await this.#ledger.replay<EntryWriteResult>(scope, keyed);
    if (replayed) return replayed;
    const head = await this.#store.head(scope);
    const before = head ? await this.#store.entryAt(scope, entryId, head.revision) : undefined;
    const [vector] = before ? await this.#embedForIndex(scope, [before.text], options.signal) : [];
    return this.#mutate(
      scope,
      async (tx, latest): Promise<EntryWriteResult> => {
        const current = await this.#requireCurrent(tx, entryId);
        if (current.state === 'active')
          return { memory: latest!, entry: current, status: 'unchanged' as const };
        const next = this.#nextVersion(current, { state: 'active' });
        if (vector && before?.contentHash === current.contentHash) {
          next.embedding = { profileId: this.#embedder.profile.id, vector };
        }
        const { memory, versions } = await tx.appendRevision('reactivate', [next], this.#projection);
        return { memory, entry: versions[0]!, status: 'created' as const };
      },
      options,
      keyed,
    );
  }

  /**
   * Erases every version of an entry from the store, keeping the revision chain with a tombstone
   * (RFC 0002, "Purge"): one new revision, operation `purge`. Purging a purged entry writes nothing
   * and answers `unchanged` with its tombstone. Unlike `forget`, this cannot be undone. The purge also
   * erases the stored results of earlier keyed writes that name the entry (their replay would give the
   * text back); its own result, ids only, is kept under `options.idempotencyKey` like any write's.
   */
  async purge(scopeId: string, request: PurgeRequest, options: WriteOptions = {}): Promise<PurgeResult> {
    const scope = parseInput(scopeIdSchema, scopeId, 'scopeId');
    const { entryId, purgedBy } = parseInput(purgeRequestSchema, request);
    const keyed = this.#ledger.keyed('purge', { entryId, purgedBy }, this.#keyOf(options));
    const replayed = await this.#ledger.replay<PurgeResult>(scope, keyed);
    if (replayed) return replayed;
    return this.#mutate(
      scope,
      async (tx, head): Promise<PurgeResult> => {
        const current = await tx.currentVersion(entryId);
        if (!current) {
          const tombstone = await tx.purgedEntry(entryId);
          if (!tombstone || !head) throw new NotFoundError('entry', entryId);
          return { memory: head, tombstone, status: 'unchanged' as const };
        }
        const { memory, tombstone } = await tx.purgeEntry(
          { entryId, tombstoneVersionId: randomUUID(), purgedBy: purgedBy ?? null },
          this.#projection,
        );
        return { memory, tombstone, status: 'purged' as const };
      },
      options,
      keyed,
    );
  }

  /**
   * Deletes the scope for good (RFC 0015): every entry of it, at every revision, from every table and
   * index, leaving a tombstone; its reads and writes answer `scope_purged` afterwards. Deleting it again
   * answers `unchanged` with the same tombstone; a scope never written is `not_found`.
   */
  async deleteScope(scopeId: string, request: DeleteScopeRequest = {}): Promise<DeleteScopeResult> {
    const scope = parseInput(scopeIdSchema, scopeId, 'scopeId');
    return this.#locks.run(scope, () => deleteScope(this.#store, scope, request));
  }

  /** Opens an export of the scope's active entries at a revision, in the import format's order (RFC 0015). */
  async openExport(scopeId: string, request: ExportRequest = {}): Promise<MemoryExport> {
    const scope = parseInput(scopeIdSchema, scopeId, 'scopeId');
    return openExport(this.#store, scope, request);
  }

  async list(scopeId: string, request: ListEntriesRequest = {}): Promise<EntryPage> {
    const scope = parseInput(scopeIdSchema, scopeId, 'scopeId');
    return listEntries(this.#store, scope, request, (revision) => this.#memoryAt(scope, revision));
  }

  async get(scopeId: string, request: GetEntryRequest): Promise<{ memory: MemoryRef; entry: EntryVersion }> {
    const scope = parseInput(scopeIdSchema, scopeId, 'scopeId');
    const input = parseInput(getEntryRequestSchema, request);
    const memory = await this.#memoryAt(scope, input.revision);
    const entry = memory ? await this.#store.entryAt(scope, input.entryId, memory.revision) : undefined;
    if (!memory) throw new NotFoundError('entry', input.entryId);
    if (!entry) {
      // Erased by a purge: said as such at every revision from the entry's first one on.
      const tombstone = await this.#store.purgedEntry(scope, input.entryId);
      const first = tombstone?.versions[0]?.revision;
      if (tombstone && first !== undefined && memory.revision >= first) {
        throw new EntryPurgedError(input.entryId, purgeInfoOf(tombstone));
      }
      throw new NotFoundError('entry', input.entryId);
    }
    return { memory, entry };
  }

  async changes(scopeId: string, request: ListChangesRequest = {}): Promise<ChangesPage> {
    const scope = parseInput(scopeIdSchema, scopeId, 'scopeId');
    const input = parseInput(listChangesRequestSchema, request);
    const position = input.cursor ? decodeCursor(changesCursorSchema, input.cursor) : undefined;
    const memory = await this.#memoryAt(scope, undefined);
    // One rule for both bounds (RFC 0002): 0 <= from <= to <= latest, where 0 is "before the first
    // write" and latest is 0 for a scope never written. A bound past the latest revision names a
    // revision that does not exist (not_found); from above to is a request that cannot mean anything.
    const latest = memory?.revision ?? 0;
    const fromRevision = position?.from ?? input.fromRevision;
    const toRevision = position?.to ?? input.toRevision ?? latest;
    for (const bound of [fromRevision, toRevision]) {
      if (bound > latest) throw new NotFoundError('revision', String(bound));
    }
    if (fromRevision > toRevision) {
      throw new ValidationError([
        { field: 'fromRevision', rule: `fromRevision must be at most toRevision (${toRevision})` },
      ]);
    }
    if (!memory || toRevision === fromRevision) return { memory, fromRevision, toRevision, changes: [] };
    const query = {
      scopeId: scope,
      fromRevision,
      toRevision,
      ...(position ? { after: { revision: position.revision, entryVersionId: position.after } } : {}),
      limit: input.limit + 1,
    };
    const [stored, erased] = await Promise.all([
      this.#store.listChanges(query),
      this.#store.listPurgedChanges(query),
    ]);
    const rows = mergeByKey<RevisionChange | PurgedChange>(stored, erased, changeKey);
    const changes = rows.slice(0, input.limit);
    const last = changes.at(-1);
    const page = { memory, fromRevision, toRevision, changes };
    return rows.length > input.limit && last
      ? {
          ...page,
          nextCursor: encodeCursor({
            from: fromRevision,
            to: toRevision,
            revision: last.revision,
            after: changeKey(last)[1],
          }),
        }
      : page;
  }

  /**
   * Checks that a citation names exactly this entry version as current at the cited revision. A valid
   * citation whose entry was purged since answers `status: 'purged'` (the evidence is gone).
   */
  async resolveCitation(scopeId: string, citation: Citation): Promise<ResolvedCitation> {
    const scope = parseInput(scopeIdSchema, scopeId, 'scopeId');
    const cited = parseInput(citationSchema, citation);
    if (cited.scopeId !== undefined && cited.scopeId !== scope) {
      throw new InvalidCitationError(`the citation names scope "${cited.scopeId}", not this one`);
    }
    const head = await this.#store.head(scope);
    if (!head || head.artifactId !== cited.artifactId) {
      throw new InvalidCitationError('artifactId is not the memory of this scope');
    }
    if (cited.revision > head.revision)
      throw new InvalidCitationError(`revision ${cited.revision} does not exist yet`);
    const entry = await this.#store.entryAt(scope, cited.entryId, cited.revision);
    const memory = { artifactId: head.artifactId, scopeId: scope, revision: cited.revision };
    if (!entry) {
      const tombstone = await this.#store.purgedEntry(scope, cited.entryId);
      const erased = tombstone ? purgedVersionAt(tombstone, cited.revision) : undefined;
      if (!tombstone || !erased) {
        throw new InvalidCitationError(`entry ${cited.entryId} did not exist at revision ${cited.revision}`);
      }
      if (erased.entryVersionId !== cited.entryVersionId) {
        throw new InvalidCitationError(
          `entry version ${cited.entryVersionId} was not current at revision ${cited.revision}`,
        );
      }
      const { entryId, entryVersionId } = cited;
      return { status: 'purged', memory, entryId, entryVersionId, purge: purgeInfoOf(tombstone) };
    }
    if (entry.entryVersionId !== cited.entryVersionId) {
      throw new InvalidCitationError(
        `entry version ${cited.entryVersionId} was not current at revision ${cited.revision}`,
      );
    }
    const atHead = await this.#store.entryAt(scope, cited.entryId, head.revision);
    return {
      status: 'valid',
      memory,
      entry,
      currentAtHead: atHead?.entryVersionId === entry.entryVersionId,
    };
  }

  async search(
    scopeId: string,
    request: SearchMemoryRequest,
    options: SearchOptions = {},
  ): Promise<SearchResult> {
    const scope = parseInput(scopeIdSchema, scopeId, 'scopeId');
    return searchMemory(this.#searchDependencies(), scope, request, options);
  }

  /**
   * One search over several scopes (1-16, distinct): each scope is searched at its own head, the
   * scopes' fused lists are fused again by RRF, and every hit's citation names its scope. The rerank
   * stage runs on the fused pool only under `multiScopeRerank: 'rerank'`; `result.multiScope` says what
   * happened. The caller checks access to every scope.
   */
  async searchScopes(
    scopeIds: readonly string[],
    request: SearchMemoryRequest,
    options: SearchOptions = {},
  ): Promise<SearchResult> {
    const scopes = parseInput(searchScopeIdsSchema, scopeIds, 'scopeIds');
    return searchMemory(this.#searchDependencies(), scopes, request, options);
  }

  #searchDependencies(): SearchDependencies {
    return {
      store: this.#store,
      embedder: this.#embedder,
      policy: this.#policy,
      channels: this.#channels,
      logger: this.#logger,
      rerankStage: this.#rerankStage,
      multiScopeRerank: this.#multiScopeRerank,
      observer: this.#observer,
    };
  }

  /** Embeds active entries that have no vector of the current profile. Returns how many were filled. */
  async reembed(
    scopeId: string,
    options: { batchSize?: number; signal?: AbortSignal } = {},
  ): Promise<number> {
    const scope = parseInput(scopeIdSchema, scopeId, 'scopeId');
    const batchSize = options.batchSize ?? 128;
    const profileId = this.#embedder.profile.id;
    let filled = 0;
    for (;;) {
      const missing = await this.#store.versionsMissingEmbedding(scope, profileId, batchSize);
      if (missing.length === 0) return filled;
      const vectors = await this.#embedder.embed(
        missing.map((version) => version.text),
        options.signal ? { signal: options.signal } : {},
      );
      await this.#store.putEmbeddings(
        scope,
        profileId,
        missing.map((version, index) => ({
          entryVersionId: version.entryVersionId,
          vector: vectors[index]!,
        })),
      );
      filled += missing.length;
    }
  }

  /**
   * Rebuilds the lexical projection of the scope's active entries under the retrieval policy's
   * projection (after a change of its neighbour weights). Returns how many entries were re-projected.
   */
  async rebuildLexicalIndex(scopeId: string): Promise<number> {
    const scope = parseInput(scopeIdSchema, scopeId, 'scopeId');
    return this.#locks.run(scope, () => this.#store.rebuildLexicalProjection(scope, this.#projection));
  }

  /** Active entries at the head whose lexical projection was built by another policy. */
  async lexicalIndexState(scopeId: string) {
    const scope = parseInput(scopeIdSchema, scopeId, 'scopeId');
    const head = await this.#store.head(scope);
    return this.#store.lexicalProjectionState(scope, head?.revision ?? 0, this.#projection.id);
  }

  async #memoryAt(scopeId: string, revision: number | undefined): Promise<MemoryRef | undefined> {
    const head = await this.#store.head(scopeId);
    if (revision === undefined || !head) {
      if (revision !== undefined) throw new NotFoundError('revision', String(revision));
      return head;
    }
    if (revision > head.revision) throw new NotFoundError('revision', String(revision));
    return { ...head, revision };
  }

  async #requireCurrent(tx: MemoryWriteTransaction, entryId: string): Promise<EntryVersion> {
    const current = await tx.currentVersion(entryId);
    if (current) return current;
    const tombstone = await tx.purgedEntry(entryId);
    if (tombstone) throw new EntryPurgedError(entryId, purgeInfoOf(tombstone));
    throw new NotFoundError('entry', entryId);
  }

  #nextVersion(
    current: EntryVersion,
    change: Partial<
      Pick<
        NewEntryVersion,
        'kind' | 'text' | 'contentHash' | 'metadata' | 'tags' | 'pinned' | 'occurredAt' | 'state'
      >
    >,
  ): NewEntryVersion {
    return {
      entryId: current.entryId,
      entryVersionId: randomUUID(),
      version: current.version + 1,
      previousVersionId: current.entryVersionId,
      kind: current.kind,
      text: current.text,
      contentHash: current.contentHash,
      sources: current.sources,
      position: current.position,
      metadata: current.metadata,
      tags: current.tags,
      pinned: current.pinned,
      occurredAt: current.occurredAt,
      state: current.state,
      ...change,
    };
  }

  /**
   * Embeds outside any lock; a failure leaves the entries without vectors (index incomplete), not
   * unwritten. An abort of `signal` is no failure of the embedder: the write stops, nothing written.
   */
  async #embedForIndex(
    scopeId: string,
    texts: string[],
    signal: AbortSignal | undefined,
  ): Promise<(number[] | undefined)[]> {
    try {
      return await this.#embedder.embed(texts, signal ? { signal } : {});
    } catch (error) {
      signal?.throwIfAborted();
      this.#logger.warn('memory.write.embedding_failed', {
        scopeId,
        profileId: this.#embedder.profile.id,
        count: texts.length,
        reason: error instanceof Error ? error.name : 'unknown',
      });
      return texts.map(() => undefined);
    }
  }

  /** The validated idempotency key of a write and its owner, if it has a key. */
  #keyOf(options: {
    idempotencyKey?: string | undefined;
    idempotencyOwner?: string | undefined;
  }): IdempotencyKeyOf | undefined {
    if (options.idempotencyKey === undefined) return undefined;
    const key = parseInput(idempotencyKeySchema, options.idempotencyKey, 'idempotencyKey');
    if (options.idempotencyOwner === undefined) return { key };
    return { key, owner: parseInput(idempotencyOwnerSchema, options.idempotencyOwner, 'idempotencyOwner') };
  }

  /**
   * Serialises writers of one scope in-process and retries a lost compare-and-swap a bounded number of
   * times. A keyed write records its result in its own transaction, and answers with the first result
   * of its key when a duplicate committed first (in this process while it waited for the lock, or in
   * another one that won the race). Until its transaction begins the write stops on `options.signal`.
   */
  async #mutate<T>(
    scopeId: string,
    work: (tx: MemoryWriteTransaction, head: MemoryRef | undefined) => Promise<T>,
    options: WriteOptions = {},
    keyed?: KeyedWrite,
  ): Promise<T> {
    return this.#locks.run(scopeId, async () => {
      const first = await this.#ledger.replay<T>(scopeId, keyed);
      if (first) return first;
      for (let attempt = 1; ; attempt += 1) {
        const head = await this.#store.head(scopeId);
        if (attempt === 1) {
          // The last moment the write can still be abandoned with nothing written.
          options.signal?.throwIfAborted();
          options.onTransactionBegin?.({ scopeId, headRevision: head?.revision ?? 0 });
        }
        try {
          return await this.#store.write(scopeId, head?.revision ?? 0, async (tx) => {
            const result = await work(tx, head);
            await this.#ledger.record(tx, keyed, result);
            return result;
          });
        } catch (error) {
          if (!(error instanceof RevisionConflictError)) throw error;
          const replayed = await this.#ledger.replay<T>(scopeId, keyed);
          if (replayed) return replayed;
          if (attempt >= this.#maxWriteAttempts) throw error;
          this.#logger.info('memory.write.conflict_retry', { scopeId, attempt });
        }
      }
    });
  }
}

/** The keyset of a change: revision, then entry version id (the tombstone's for a purge). */
function changeKey(change: RevisionChange | PurgedChange): [number, string] {
  return [change.revision, change.purged ? change.entryVersionId : change.version.entryVersionId];
}
