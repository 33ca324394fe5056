import { randomUUID } from 'node:crypto';
import { extractEntities } from '../domain/entities.js';
import { matchesFilter } from '../domain/entry-filter.js';
import {
  type LexicalProjectionPolicy,
  type LexicalProjectionState,
  type PlannedProjection,
  type ProjectionNeighbour,
  planProjections,
  type SourceMember,
} from '../domain/lexical-projection.js';
import type { EntryVersion } from '../domain/memory-entry.js';
import type { MemoryRef } from '../domain/memory-ref.js';
import {
  type PurgedChange,
  type PurgedEntryMarker,
  type PurgeTombstone,
  purgeInfoOf,
} from '../domain/purge.js';
import type { ScopeTombstone } from '../domain/scope-deletion.js';
import type { ChannelCandidate, LexicalCandidate, LexicalMatchSources } from '../domain/search.js';
import { containsFolded } from '../domain/text-rules.js';
import { RevisionConflictError } from '../errors/revision-conflict-error.js';
import { ScopePurgedError } from '../errors/scope-purged-error.js';
import type { EmbeddingProfile } from '../ports/embedder.port.js';
import type {
  EmbeddingToStore,
  EntityNeighbourQuery,
  EntitySearchQuery,
  EntitySearchResult,
  ExportEntriesQuery,
  IdempotencyRecord,
  LexicalMatchQuery,
  LexicalMatchReport,
  LexicalSearchQuery,
  LexicalSearchResult,
  ListChangesQuery,
  ListEntriesQuery,
  MemoryStore,
  MemoryWriteTransaction,
  NewEntryVersion,
  PurgeEntryWrite,
  RevisionChange,
  VectorIndexState,
  VectorSearchQuery,
  VersionOperation,
} from '../ports/memory-store.port.js';
import { KeyedMutex } from '../service/keyed-mutex.js';
import { entityNeighbours, searchEntities } from './in-memory-entities.js';
import { analyze, termFrequencies } from './simple-analyzer.js';

interface StoredVersion {
  version: EntryVersion;
  operation: VersionOperation;
  supersededAt?: number;
  terms: Map<string, number>;
  length: number;
  vectors: Map<string, number[]>;
  /** The entities of the text (RFC 0013), extracted at write time; none for an inactive version. */
  entities: readonly string[];
}

/** What the lexical index holds for one entry version from revision `from` until `supersededAt`. */
interface StoredProjection {
  entryVersionId: string;
  from: number;
  supersededAt?: number;
  policyId: string;
  context: ProjectionNeighbour[];
  terms: Map<string, number>;
  length: number;
}

interface StoredMemory {
  ref: MemoryRef;
  versions: StoredVersion[];
  projections: StoredProjection[];
  /** Tombstones of purged entries, by entry id. */
  purges: Map<string, PurgeTombstone>;
}

const liveAt = (stored: StoredVersion, revision: number) =>
  stored.version.revision <= revision &&
  (stored.supersededAt === undefined || stored.supersededAt > revision);

const projectionLiveAt = (projection: StoredProjection, revision: number) =>
  projection.from <= revision &&
  (projection.supersededAt === undefined || projection.supersededAt > revision);

/**
 * A complete MemoryStore in process memory, for tests and examples. It passes the same contract
 * suite as the PostgreSQL adapters; its lexical analysis folds accents as `unaccent` does and splits
 * words, without stemming.
 */
export class InMemoryMemoryStore implements MemoryStore {
  readonly #memories = new Map<string, StoredMemory>();
  readonly #locks = new KeyedMutex();
  /** Idempotency records per scope, then per key; they live beside the memory, not inside it. */
  readonly #idempotency = new Map<string, Map<string, IdempotencyRecord>>();
  /** The tombstones of deleted scopes (RFC 0015). */
  readonly #deleted = new Map<string, ScopeTombstone>();

  async head(scopeId: string): Promise<MemoryRef | undefined> {
    const memory = this.#memories.get(scopeId);
    if (memory) return { ...memory.ref };
    const tombstone = this.#deleted.get(scopeId);
    if (tombstone) throw new ScopePurgedError({ ...tombstone });
    return undefined;
  }

  async deleteScope(scopeId: string, deletedBy: string | null) {
    return this.#locks.run(scopeId, async () => {
      const memory = this.#memories.get(scopeId);
      const earlier = this.#deleted.get(scopeId);
      if (earlier) return { tombstone: { ...earlier }, status: 'unchanged' as const };
      if (!memory) return undefined;
      const revision = memory.ref.revision;
      const tombstone: ScopeTombstone = {
        scopeId,
        artifactId: memory.ref.artifactId,
        revision,
        entries: memory.versions.filter((stored) => liveAt(stored, revision)).length,
        deletedAt: new Date().toISOString(),
        deletedBy,
      };
      this.#memories.delete(scopeId);
      this.#idempotency.delete(scopeId);
      this.#deleted.set(scopeId, tombstone);
      return { tombstone: { ...tombstone }, status: 'deleted' as const };
    });
  }

  async deletedScope(scopeId: string) {
    const tombstone = this.#deleted.get(scopeId);
    return tombstone ? { ...tombstone } : undefined;
  }

  async activeEntryCount(scopeId: string, revision: number) {
    return this.#live(scopeId, revision).filter((stored) => stored.version.state === 'active').length;
  }

  async exportEntries(query: ExportEntriesQuery) {
    const after = query.after;
    return this.#live(query.scopeId, query.revision)
      .filter((stored) => stored.version.state === 'active')
      .map((stored) => stored.version)
      .filter(
        (version) =>
          after === undefined ||
          compare(version.contentHash, after.contentHash) > 0 ||
          (version.contentHash === after.contentHash && version.entryVersionId > after.entryVersionId),
      )
      .sort((a, b) => compare(a.contentHash, b.contentHash) || compare(a.entryVersionId, b.entryVersionId))
      .slice(0, query.limit)
      .map((version) => structuredClone(version));
  }

  async write<T>(
    scopeId: string,
    expectedRevision: number,
    work: (tx: MemoryWriteTransaction) => Promise<T>,
  ) {
    return this.#locks.run(scopeId, async () => {
      const memory = this.#memories.get(scopeId);
      const deleted = this.#deleted.get(scopeId);
      if (deleted) throw new ScopePurgedError({ ...deleted });
      if ((memory?.ref.revision ?? 0) !== expectedRevision)
        throw new RevisionConflictError(scopeId, expectedRevision);
      const live = (memory?.versions ?? []).filter((stored) => liveAt(stored, expectedRevision));
      let pending: PendingRevision | undefined;
      const records: IdempotencyRecord[] = [];
      const createdAt = new Date().toISOString();
      const tx: MemoryWriteTransaction = {
        findActiveByContentHash: async (hashes) =>
          new Map(
            live
              .filter(
                (stored) => stored.version.state === 'active' && hashes.includes(stored.version.contentHash),
              )
              // Later entries first, so that for a shared hash the earliest entry is the one kept.
              .sort(
                (a, b) =>
                  b.version.revision - a.version.revision || compare(b.version.entryId, a.version.entryId),
              )
              .map((stored) => [stored.version.contentHash, { ...stored.version }]),
          ),
        currentVersion: async (entryId) => {
          const found = live.find((stored) => stored.version.entryId === entryId);
          return found ? { ...found.version } : undefined;
        },
        appendRevision: async (operation, versions, projection) => {
          if (pending) throw new Error('appendRevision may be called once per write');
          const ref = {
            artifactId: memory?.ref.artifactId ?? randomUUID(),
            scopeId,
            revision: expectedRevision + 1,
          };
          pending = { kind: 'append', operation, versions, ref, projection };
          return {
            memory: ref,
            versions: versions.map((version) => toEntryVersion(version, ref.revision, createdAt)),
          };
        },
        recordIdempotency: async (record) => {
          const taken = [...records, ...(this.#idempotency.get(scopeId)?.values() ?? [])].some(
            (other) => other.key === record.key && other.expiresAt > record.createdAt,
          );
          if (taken) throw new RevisionConflictError(scopeId, expectedRevision);
          records.push(copyRecord(record));
        },
        purgedEntry: async (entryId) => cloneTombstone(memory?.purges.get(entryId)),
        purgeEntry: async (purge, projection) => {
          if (pending) throw new Error('appendRevision may be called once per write');
          const current = live.find((stored) => stored.version.entryId === purge.entryId);
          if (!memory || !current) throw new Error(`entry ${purge.entryId} has no current version`);
          const ref = { ...memory.ref, revision: expectedRevision + 1 };
          const tombstone = tombstoneOf(memory, purge, ref.revision, createdAt);
          pending = { kind: 'purge', purge, tombstone, ref, projection };
          return { memory: ref, tombstone: cloneTombstone(tombstone)! };
        },
      };
      const result = await work(tx);
      if (pending?.kind === 'append') this.#apply(scopeId, memory, pending, createdAt);
      if (pending?.kind === 'purge') this.#applyPurge(memory!, pending);
      // The purge's own record (ids only) is kept after the erasure of the entry's earlier ones.
      for (const record of records) this.#keep(scopeId, record);
      return result;
    });
  }

  /** Keeps a committed record; expired records of every scope go on the way (lazy pruning). */
  #keep(scopeId: string, record: IdempotencyRecord) {
    for (const [scope, byKey] of this.#idempotency) {
      for (const [key, other] of byKey) if (other.expiresAt <= record.createdAt) byKey.delete(key);
      if (byKey.size === 0) this.#idempotency.delete(scope);
    }
    const byKey = this.#idempotency.get(scopeId) ?? new Map<string, IdempotencyRecord>();
    byKey.set(record.key, record);
    this.#idempotency.set(scopeId, byKey);
  }

  async idempotencyRecord(scopeId: string, key: string, now: Date): Promise<IdempotencyRecord | undefined> {
    const record = this.#idempotency.get(scopeId)?.get(key);
    return record && record.expiresAt > now ? copyRecord(record) : undefined;
  }

  /** How many idempotency records are kept, expired ones not yet pruned included (for tests). */
  get idempotencyRecordCount(): number {
    return [...this.#idempotency.values()].reduce((sum, byKey) => sum + byKey.size, 0);
  }

  /**
   * Erases every version of the entry: the versions (text, vectors, terms), their projections, and
   * their words in neighbours' projections at every revision (rebuilt in place without them). Then
   * the entry's source is re-projected at the new head.
   */
  #applyPurge(memory: StoredMemory, pending: PendingPurge) {
    const revision = pending.ref.revision;
    const erased = new Set(pending.tombstone.versions.map((v) => v.entryVersionId));
    const current = memory.versions.find(
      (stored) => stored.version.entryId === pending.purge.entryId && stored.supersededAt === undefined,
    );
    memory.versions = memory.versions.filter((stored) => !erased.has(stored.version.entryVersionId));
    memory.projections = memory.projections.filter((p) => !erased.has(p.entryVersionId));
    for (const projection of memory.projections) {
      if (!projection.context.some((neighbour) => erased.has(neighbour.entryVersionId))) continue;
      const context = projection.context.filter((neighbour) => !erased.has(neighbour.entryVersionId));
      Object.assign(
        projection,
        project(memory, { entryVersionId: projection.entryVersionId, context }, projection.policyId),
      );
    }
    memory.purges.set(pending.purge.entryId, pending.tombstone);
    memory.ref = pending.ref;
    // Stored results of keyed writes that name the entry (a revise's answer holds its text): erased too.
    const byKey = this.#idempotency.get(memory.ref.scopeId);
    for (const [key, record] of byKey ?? []) {
      if (record.result.includes(pending.purge.entryId)) byKey!.delete(key);
    }
    const position = current?.version.state === 'active' ? current.version.position : null;
    if (position) {
      const planned = this.#plan(memory, pending.projection, new Set([position.sourceId]), []);
      this.#replaceProjections(memory, planned, pending.projection, revision);
    }
  }

  #replaceProjections(
    memory: StoredMemory,
    planned: readonly PlannedProjection[],
    policy: LexicalProjectionPolicy,
    revision: number,
  ) {
    for (const plan of planned) {
      const current = memory.projections.find(
        (p) => p.entryVersionId === plan.entryVersionId && p.supersededAt === undefined,
      );
      if (current) current.supersededAt = revision;
      memory.projections.push({ ...project(memory, plan, policy.id), from: revision });
    }
  }

  #apply(scopeId: string, memory: StoredMemory | undefined, pending: PendingAppend, createdAt: string) {
    const target: StoredMemory = memory ?? {
      ref: pending.ref,
      versions: [],
      projections: [],
      purges: new Map(),
    };
    const revision = pending.ref.revision;
    for (const version of pending.versions) {
      if (version.previousVersionId) {
        const previous = target.versions.find(
          (stored) => stored.version.entryVersionId === version.previousVersionId,
        );
        if (previous) previous.supersededAt = revision;
        for (const projection of target.projections) {
          if (
            projection.entryVersionId === version.previousVersionId &&
            projection.supersededAt === undefined
          )
            projection.supersededAt = revision;
        }
      }
      const terms = version.state === 'active' ? termFrequencies(version.text) : new Map<string, number>();
      target.versions.push({
        version: toEntryVersion(version, pending.ref.revision, createdAt),
        operation: pending.operation,
        terms,
        length: [...terms.values()].reduce((sum, count) => sum + count, 0),
        vectors: new Map(
          version.embedding ? [[version.embedding.profileId, [...version.embedding.vector]]] : [],
        ),
        entities: version.state === 'active' ? extractEntities(version.text) : [],
      });
    }
    target.ref = pending.ref;
    const touched = new Set(pending.versions.flatMap((v) => (v.position ? [v.position.sourceId] : [])));
    const unpositioned = pending.versions
      .filter((v) => v.state === 'active' && !v.position)
      .map((v) => v.entryVersionId);
    const planned = this.#plan(target, pending.projection, touched, unpositioned);
    this.#replaceProjections(target, planned, pending.projection, revision);
    this.#memories.set(scopeId, target);
  }

  /** Projections to rebuild for these sources and unpositioned versions, at the head of `memory`. */
  #plan(
    memory: StoredMemory,
    policy: LexicalProjectionPolicy,
    sourceIds: ReadonlySet<string>,
    unpositioned: readonly string[],
  ): PlannedProjection[] {
    const sources = new Map<string, SourceMember[]>();
    for (const stored of memory.versions) {
      const position = stored.version.position;
      if (!position || !sourceIds.has(position.sourceId)) continue;
      if (stored.version.state !== 'active' || !liveAt(stored, memory.ref.revision)) continue;
      const members = sources.get(position.sourceId) ?? [];
      members.push({
        entryId: stored.version.entryId,
        entryVersionId: stored.version.entryVersionId,
        order: position.order,
      });
      sources.set(position.sourceId, members);
    }
    return planProjections({
      policy,
      sources,
      unpositioned,
      current: (entryVersionId) =>
        memory.projections.find((p) => p.entryVersionId === entryVersionId && p.supersededAt === undefined),
    });
  }

  async lexicalProjectionState(
    scopeId: string,
    revision: number,
    policyId: string,
  ): Promise<LexicalProjectionState> {
    const memory = this.#memories.get(scopeId);
    const stale = this.#live(scopeId, revision).filter((stored) => {
      if (stored.version.state !== 'active') return false;
      const projection = memory?.projections.find(
        (p) => p.entryVersionId === stored.version.entryVersionId && projectionLiveAt(p, revision),
      );
      return projection?.policyId !== policyId;
    }).length;
    return { policyId, stale, complete: stale === 0 };
  }

  async rebuildLexicalProjection(scopeId: string, projection: LexicalProjectionPolicy): Promise<number> {
    return this.#locks.run(scopeId, async () => {
      const memory = this.#memories.get(scopeId);
      if (!memory) return 0;
      const active = this.#live(scopeId, memory.ref.revision).filter((s) => s.version.state === 'active');
      const sourceIds = new Set(
        active.flatMap((s) => (s.version.position ? [s.version.position.sourceId] : [])),
      );
      const unpositioned = active.filter((s) => !s.version.position).map((s) => s.version.entryVersionId);
      const planned = this.#plan(memory, projection, sourceIds, unpositioned);
      // Computed before any is replaced, then swapped in place: the rebuilt projection keeps the
      // revision range of the one it replaces, since the memory itself did not change.
      const rebuilt = planned.map((plan) => project(memory, plan, projection.id));
      for (const next of rebuilt) {
        const current = memory.projections.find(
          (p) => p.entryVersionId === next.entryVersionId && p.supersededAt === undefined,
        );
        if (current) Object.assign(current, next);
        else memory.projections.push({ ...next, from: memory.ref.revision });
      }
      return rebuilt.length;
    });
  }

  async revisionExists(scopeId: string, revision: number) {
    const memory = this.#memories.get(scopeId);
    return memory !== undefined && revision >= 1 && revision <= memory.ref.revision;
  }

  async entryAt(scopeId: string, entryId: string, revision: number) {
    const found = this.#live(scopeId, revision).find((stored) => stored.version.entryId === entryId);
    return found ? { ...found.version } : undefined;
  }

  async entryVersion(scopeId: string, entryVersionId: string) {
    const found = this.#memories
      .get(scopeId)
      ?.versions.find((s) => s.version.entryVersionId === entryVersionId);
    return found ? { ...found.version } : undefined;
  }

  async entryVersions(scopeId: string, entryVersionIds: readonly string[]) {
    const wanted = new Set(entryVersionIds);
    const found = new Map<string, EntryVersion>();
    for (const { version } of this.#memories.get(scopeId)?.versions ?? []) {
      if (wanted.has(version.entryVersionId)) found.set(version.entryVersionId, { ...version });
    }
    return found;
  }

  async listEntries(query: ListEntriesQuery) {
    const order = query.order ?? 'entry_id';
    const sign = order === 'newest' ? -1 : 1;
    const after = query.after;
    return this.#listed(query)
      .map((stored) => stored.version)
      .filter((version) => query.afterEntryId === undefined || version.entryId > query.afterEntryId)
      .filter(
        (version) =>
          !after ||
          order === 'entry_id' ||
          sign * (version.revision - after.revision) > 0 ||
          (version.revision === after.revision && version.entryId > after.entryId),
      )
      .sort((a, b) =>
        order === 'entry_id'
          ? compare(a.entryId, b.entryId)
          : sign * (a.revision - b.revision) || compare(a.entryId, b.entryId),
      )
      .slice(0, query.limit)
      .map((version) => ({ ...version }));
  }

  async countEntries(query: ListEntriesQuery): Promise<number> {
    return this.#listed(query).length;
  }

  /** The versions live at the query's revision of its state that its filter and text keep, unordered. */
  #listed(query: ListEntriesQuery) {
    return this.#live(query.scopeId, query.revision)
      .filter((stored) => query.state === 'all' || stored.version.state === query.state)
      .filter((stored) => matchesFilter(stored.version, query.filter))
      .filter((stored) => query.text === undefined || containsFolded(stored.version.text, query.text));
  }

  async listChanges(query: ListChangesQuery): Promise<RevisionChange[]> {
    const after = query.after;
    return (this.#memories.get(query.scopeId)?.versions ?? [])
      .filter((s) => s.version.revision > query.fromRevision && s.version.revision <= query.toRevision)
      .filter(
        (s) =>
          !after ||
          s.version.revision > after.revision ||
          (s.version.revision === after.revision && s.version.entryVersionId > after.entryVersionId),
      )
      .sort(
        (a, b) =>
          a.version.revision - b.version.revision ||
          compare(a.version.entryVersionId, b.version.entryVersionId),
      )
      .slice(0, query.limit)
      .map((s) => ({ revision: s.version.revision, operation: s.operation, version: { ...s.version } }));
  }

  async purgedEntry(scopeId: string, entryId: string) {
    return cloneTombstone(this.#memories.get(scopeId)?.purges.get(entryId));
  }

  async listPurgedEntries(query: ListEntriesQuery): Promise<PurgedEntryMarker[]> {
    const markers: PurgedEntryMarker[] = [];
    for (const tombstone of this.#memories.get(query.scopeId)?.purges.values() ?? []) {
      const version = tombstone.versions.find(
        (v) => v.revision <= query.revision && query.revision < v.supersededRevision,
      );
      if (!version || (query.state !== 'all' && version.state !== query.state)) continue;
      if (query.afterEntryId !== undefined && tombstone.entryId <= query.afterEntryId) continue;
      markers.push({
        entryId: tombstone.entryId,
        entryVersionId: version.entryVersionId,
        version: version.version,
        revision: version.revision,
        state: version.state,
        purged: true,
        purge: purgeInfoOf(tombstone),
      });
    }
    return markers.sort((a, b) => compare(a.entryId, b.entryId)).slice(0, query.limit);
  }

  async listPurgedChanges(query: ListChangesQuery): Promise<PurgedChange[]> {
    const changes: PurgedChange[] = [];
    for (const tombstone of this.#memories.get(query.scopeId)?.purges.values() ?? []) {
      const purge = purgeInfoOf(tombstone);
      const { entryId } = tombstone;
      for (const v of tombstone.versions) {
        const { revision, operation, entryVersionId, version } = v;
        changes.push({ revision, operation, purged: true, entryId, entryVersionId, version, purge });
      }
      changes.push({
        revision: tombstone.revision,
        operation: 'purge',
        purged: true,
        entryId,
        entryVersionId: tombstone.entryVersionId,
        version: tombstone.version,
        purge,
      });
    }
    const after = query.after;
    return changes
      .filter((c) => c.revision > query.fromRevision && c.revision <= query.toRevision)
      .filter(
        (c) =>
          !after ||
          c.revision > after.revision ||
          (c.revision === after.revision && c.entryVersionId > after.entryVersionId),
      )
      .sort((a, b) => a.revision - b.revision || compare(a.entryVersionId, b.entryVersionId))
      .slice(0, query.limit);
  }

  async lexicalSearch(query: LexicalSearchQuery): Promise<LexicalSearchResult> {
    const terms = [...new Set(analyze(query.query))];
    // By version id, so a large scope costs one pass (a search of 10,000 entries in the contracts).
    const projections = new Map(
      (this.#memories.get(query.scopeId)?.projections ?? [])
        .filter((p) => projectionLiveAt(p, query.revision))
        .map((p) => [p.entryVersionId, p]),
    );
    const live = this.#live(query.scopeId, query.revision)
      .filter((stored) => stored.version.state === 'active')
      .flatMap((stored) => {
        const projection = projections.get(stored.version.entryVersionId);
        return projection
          ? [{ version: stored.version, terms: projection.terms, length: projection.length }]
          : [];
      });
    const count = live.length;
    const averageLength = count === 0 ? 0 : live.reduce((sum, stored) => sum + stored.length, 0) / count;
    const documentFrequency = new Map(
      terms.map((term) => [term, live.filter((s) => s.terms.has(term)).length]),
    );
    const { k1, b, delta } = query.bm25;
    const scored = live
      .map((stored) => {
        let score = 0;
        let matchedTerms = 0;
        for (const term of terms) {
          const tf = stored.terms.get(term);
          if (!tf) continue;
          matchedTerms += 1;
          const df = documentFrequency.get(term) ?? 0;
          const idf = Math.log(1 + (count - df + 0.5) / (df + 0.5));
          const norm = averageLength > 0 ? 1 - b + (b * stored.length) / averageLength : 1;
          score += idf * ((tf * (k1 + 1)) / (tf + k1 * norm) + delta);
        }
        return { stored, score, matchedTerms };
      })
      .filter((item) => item.matchedTerms > 0 && matchesFilter(item.stored.version, query.filter))
      .sort((x, y) => y.score - x.score || byIdentity(x.stored.version, y.stored.version))
      .slice(0, query.limit);
    const candidates: LexicalCandidate[] = scored.map((item, index) => ({
      entryId: item.stored.version.entryId,
      entryVersionId: item.stored.version.entryVersionId,
      rank: index + 1,
      score: item.score,
      matchedTerms: item.matchedTerms,
    }));
    return { queryTermCount: terms.length, candidates };
  }

  async explainLexicalMatches(query: LexicalMatchQuery): Promise<LexicalMatchReport> {
    const queryTerms = [...new Set(analyze(query.query))];
    const memory = this.#memories.get(query.scopeId);
    const matches = new Map<string, LexicalMatchSources>();
    for (const entryVersionId of query.entryVersionIds) {
      const projection = memory?.projections.find(
        (p) => p.entryVersionId === entryVersionId && projectionLiveAt(p, query.revision),
      );
      if (!projection) continue;
      // The projection's own part is the version's own term frequencies (see `project`).
      const own = memory?.versions.find((s) => s.version.entryVersionId === entryVersionId)?.terms;
      const matched = queryTerms.filter((term) => projection.terms.has(term));
      matches.set(entryVersionId, {
        ownTerms: matched.filter((term) => own?.has(term)),
        contextTerms: matched.filter((term) => !own?.has(term)),
      });
    }
    return { queryTerms, matches };
  }

  async vectorSearch(query: VectorSearchQuery): Promise<ChannelCandidate[]> {
    return this.#live(query.scopeId, query.revision)
      .filter((stored) => stored.version.state === 'active' && stored.vectors.has(query.profileId))
      .filter((stored) => matchesFilter(stored.version, query.filter))
      .map((stored) => ({ stored, score: cosine(stored.vectors.get(query.profileId)!, query.vector) }))
      .sort((x, y) => y.score - x.score || byIdentity(x.stored.version, y.stored.version))
      .slice(0, query.limit)
      .map((item, index) => ({
        entryId: item.stored.version.entryId,
        entryVersionId: item.stored.version.entryVersionId,
        rank: index + 1,
        score: item.score,
      }));
  }

  async entitySearch(query: EntitySearchQuery): Promise<EntitySearchResult> {
    return searchEntities(this.#entityHolders(query.scopeId, query.revision), query);
  }

  async entityNeighbours(query: EntityNeighbourQuery): Promise<ChannelCandidate[]> {
    return entityNeighbours(this.#entityHolders(query.scopeId, query.revision), query);
  }

  #entityHolders(scopeId: string, revision: number) {
    return this.#live(scopeId, revision)
      .filter((stored) => stored.version.state === 'active')
      .map((stored) => ({ version: stored.version, entities: stored.entities }));
  }

  async vectorIndexState(scopeId: string, revision: number, profileId: string): Promise<VectorIndexState> {
    const missing = this.#live(scopeId, revision).filter(
      (stored) => stored.version.state === 'active' && !stored.vectors.has(profileId),
    ).length;
    return { profileId, missing, complete: missing === 0 };
  }

  async versionsMissingEmbedding(scopeId: string, profileId: string, limit: number) {
    const head = this.#memories.get(scopeId)?.ref.revision ?? 0;
    return this.#live(scopeId, head)
      .filter((stored) => stored.version.state === 'active' && !stored.vectors.has(profileId))
      .slice(0, limit)
      .map((stored) => ({ ...stored.version }));
  }

  async putEmbeddings(scopeId: string, profileId: string, embeddings: readonly EmbeddingToStore[]) {
    const versions = this.#memories.get(scopeId)?.versions ?? [];
    for (const { entryVersionId, vector } of embeddings) {
      versions.find((s) => s.version.entryVersionId === entryVersionId)?.vectors.set(profileId, [...vector]);
    }
  }

  async prepareEmbeddingProfile(_profile: EmbeddingProfile) {}

  async listScopes() {
    return [...this.#memories.keys()].sort(compare);
  }

  async close() {}

  #live(scopeId: string, revision: number) {
    return (this.#memories.get(scopeId)?.versions ?? []).filter((stored) => liveAt(stored, revision));
  }
}

interface PendingAppend {
  kind: 'append';
  operation: VersionOperation;
  versions: readonly NewEntryVersion[];
  ref: MemoryRef;
  projection: LexicalProjectionPolicy;
}

interface PendingPurge {
  kind: 'purge';
  purge: PurgeEntryWrite;
  tombstone: PurgeTombstone;
  ref: MemoryRef;
  projection: LexicalProjectionPolicy;
}

type PendingRevision = PendingAppend | PendingPurge;

/** The tombstone of a purge at `revision`: the erased versions' ids and revision ranges, no content. */
function tombstoneOf(
  memory: StoredMemory,
  purge: PurgeEntryWrite,
  revision: number,
  purgedAt: string,
): PurgeTombstone {
  const versions = memory.versions
    .filter((stored) => stored.version.entryId === purge.entryId)
    .sort((a, b) => a.version.version - b.version.version);
  const last = versions.at(-1)!.version;
  return {
    entryId: purge.entryId,
    entryVersionId: purge.tombstoneVersionId,
    version: last.version + 1,
    previousVersionId: last.entryVersionId,
    revision,
    purgedAt,
    purgedBy: purge.purgedBy,
    versions: versions.map((stored) => ({
      entryVersionId: stored.version.entryVersionId,
      version: stored.version.version,
      revision: stored.version.revision,
      operation: stored.operation,
      supersededRevision: stored.supersededAt ?? revision,
      state: stored.version.state,
    })),
  };
}

function cloneTombstone(tombstone: PurgeTombstone | undefined): PurgeTombstone | undefined {
  return tombstone ? { ...tombstone, versions: tombstone.versions.map((v) => ({ ...v })) } : undefined;
}

/** An entry's own term frequencies plus each neighbour's, scaled by its weight. */
function project(
  memory: StoredMemory,
  plan: PlannedProjection,
  policyId: string,
): Omit<StoredProjection, 'from'> {
  const own = memory.versions.find((s) => s.version.entryVersionId === plan.entryVersionId);
  const terms = new Map(own?.terms ?? []);
  for (const neighbour of plan.context) {
    const stored = memory.versions.find((s) => s.version.entryVersionId === neighbour.entryVersionId);
    for (const [term, count] of stored?.terms ?? []) {
      terms.set(term, (terms.get(term) ?? 0) + neighbour.weight * count);
    }
  }
  const length = [...terms.values()].reduce((sum, count) => sum + count, 0);
  return { entryVersionId: plan.entryVersionId, policyId, context: plan.context, terms, length };
}

function toEntryVersion(version: NewEntryVersion, revision: number, createdAt: string): EntryVersion {
  const { embedding: _embedding, ...rest } = version;
  return {
    ...rest,
    sources: rest.sources.map((s) => ({ ...s })),
    metadata: structuredClone(rest.metadata),
    tags: [...rest.tags],
    revision,
    createdAt,
  };
}

function copyRecord(record: IdempotencyRecord): IdempotencyRecord {
  return { ...record, createdAt: new Date(record.createdAt), expiresAt: new Date(record.expiresAt) };
}

function compare(a: string, b: string) {
  return a < b ? -1 : a > b ? 1 : 0;
}

function byIdentity(a: EntryVersion, b: EntryVersion) {
  return compare(a.entryId, b.entryId) || compare(a.entryVersionId, b.entryVersionId);
}

function cosine(a: readonly number[], b: readonly number[]) {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i += 1) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
