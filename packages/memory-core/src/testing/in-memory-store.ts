import { randomUUID } from 'node:crypto';
import type { EntryVersion } from '../domain/memory-entry.js';
import type { MemoryRef } from '../domain/memory-ref.js';
import type { ChannelCandidate, LexicalCandidate } from '../domain/search.js';
import { RevisionConflictError } from '../errors/revision-conflict-error.js';
import type { EmbeddingProfile } from '../ports/embedder.port.js';
import type {
  EmbeddingToStore,
  LexicalSearchQuery,
  LexicalSearchResult,
  ListChangesQuery,
  ListEntriesQuery,
  MemoryStore,
  MemoryWriteTransaction,
  NewEntryVersion,
  RevisionChange,
  RevisionOperation,
  VectorIndexState,
  VectorSearchQuery,
} from '../ports/memory-store.port.js';
import { KeyedMutex } from '../service/keyed-mutex.js';
import { analyze, termFrequencies } from './simple-analyzer.js';

interface StoredVersion {
  version: EntryVersion;
  operation: RevisionOperation;
  supersededAt?: number;
  terms: Map<string, number>;
  length: number;
  vectors: Map<string, number[]>;
}

interface StoredMemory {
  ref: MemoryRef;
  versions: StoredVersion[];
}

const liveAt = (stored: StoredVersion, revision: number) =>
  stored.version.revision <= revision &&
  (stored.supersededAt === undefined || stored.supersededAt > revision);

/**
 * A complete MemoryStore in process memory, for tests and examples. It passes the same contract
 * suite as the PostgreSQL adapters; its lexical analysis is plain word splitting without stemming.
 */
export class InMemoryMemoryStore implements MemoryStore {
  readonly #memories = new Map<string, StoredMemory>();
  readonly #locks = new KeyedMutex();

  async head(scopeId: string): Promise<MemoryRef | undefined> {
    const memory = this.#memories.get(scopeId);
    return memory ? { ...memory.ref } : undefined;
  }

  async write<T>(
    scopeId: string,
    expectedRevision: number,
    work: (tx: MemoryWriteTransaction) => Promise<T>,
  ) {
    return this.#locks.run(scopeId, async () => {
      const memory = this.#memories.get(scopeId);
      if ((memory?.ref.revision ?? 0) !== expectedRevision)
        throw new RevisionConflictError(scopeId, expectedRevision);
      const live = (memory?.versions ?? []).filter((stored) => liveAt(stored, expectedRevision));
      let pending:
        | { operation: RevisionOperation; versions: readonly NewEntryVersion[]; ref: MemoryRef }
        | undefined;
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
        appendRevision: async (operation, versions) => {
          if (pending) throw new Error('appendRevision may be called once per write');
          const ref = {
            artifactId: memory?.ref.artifactId ?? randomUUID(),
            scopeId,
            revision: expectedRevision + 1,
          };
          pending = { operation, versions, ref };
          return {
            memory: ref,
            versions: versions.map((version) => toEntryVersion(version, ref.revision, createdAt)),
          };
        },
      };
      const result = await work(tx);
      if (pending) this.#apply(scopeId, memory, pending, createdAt);
      return result;
    });
  }

  #apply(
    scopeId: string,
    memory: StoredMemory | undefined,
    pending: { operation: RevisionOperation; versions: readonly NewEntryVersion[]; ref: MemoryRef },
    createdAt: string,
  ) {
    const target = memory ?? { ref: pending.ref, versions: [] };
    for (const version of pending.versions) {
      if (version.previousVersionId) {
        const previous = target.versions.find(
          (stored) => stored.version.entryVersionId === version.previousVersionId,
        );
        if (previous) previous.supersededAt = pending.ref.revision;
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
      });
    }
    target.ref = pending.ref;
    this.#memories.set(scopeId, target);
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

  async listEntries(query: ListEntriesQuery) {
    return this.#live(query.scopeId, query.revision)
      .filter((stored) => query.state === 'all' || stored.version.state === query.state)
      .filter((stored) => query.afterEntryId === undefined || stored.version.entryId > query.afterEntryId)
      .sort((a, b) => compare(a.version.entryId, b.version.entryId))
      .slice(0, query.limit)
      .map((stored) => ({ ...stored.version }));
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

  async lexicalSearch(query: LexicalSearchQuery): Promise<LexicalSearchResult> {
    const terms = [...new Set(analyze(query.query))];
    const live = this.#live(query.scopeId, query.revision).filter(
      (stored) => stored.version.state === 'active',
    );
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
      .filter((item) => item.matchedTerms > 0)
      .sort((x, y) => y.score - x.score || byIdentity(x.stored.version, y.stored.version))
      .slice(0, query.limit);
    const candidates: LexicalCandidate[] = scored.map((item, index) => ({
      version: { ...item.stored.version },
      rank: index + 1,
      score: item.score,
      matchedTerms: item.matchedTerms,
    }));
    return { queryTermCount: terms.length, candidates };
  }

  async vectorSearch(query: VectorSearchQuery): Promise<ChannelCandidate[]> {
    return this.#live(query.scopeId, query.revision)
      .filter((stored) => stored.version.state === 'active' && stored.vectors.has(query.profileId))
      .map((stored) => ({ stored, score: cosine(stored.vectors.get(query.profileId)!, query.vector) }))
      .sort((x, y) => y.score - x.score || byIdentity(x.stored.version, y.stored.version))
      .slice(0, query.limit)
      .map((item, index) => ({ version: { ...item.stored.version }, rank: index + 1, score: item.score }));
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

function toEntryVersion(version: NewEntryVersion, revision: number, createdAt: string): EntryVersion {
  const { embedding: _embedding, ...rest } = version;
  return {
    ...rest,
    sources: rest.sources.map((s) => ({ ...s })),
    metadata: structuredClone(rest.metadata),
    revision,
    createdAt,
  };
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
