import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type MemoryStore,
  PowerContextError,
  RevisionNotVisibleError,
  StoreUnavailableError,
} from '@powercontext/memory-core';
import { isUnavailable } from './store-errors.js';

/**
 * The store methods a read may send to a replica. Everything else (writes, idempotency records, the
 * embedding and lexical maintenance, listing scopes, and any method added later) goes to the primary.
 * Every one of these reads at an explicit revision or at the head the read began with, so a read that
 * moves from a replica to the primary part way through (the replica failed) reads the same data: the
 * primary has every revision a replica has (a purge is the exception: see RFC 0011, "Known limits").
 */
const REPLICA_READS = new Set<string>([
  'head',
  'heads',
  'searchHead',
  'searchHeads',
  'revisionExists',
  'entryAt',
  'entryVersion',
  'entryVersions',
  'entryVersionsOfScopes',
  'listEntries',
  'listChanges',
  'purgedEntry',
  'listPurgedEntries',
  'listPurgedChanges',
  'lexicalSearch',
  'lexicalSearchScopes',
  'explainLexicalMatches',
  'vectorSearch',
  'vectorSearchScopes',
  'vectorIndexState',
  'entitySearch',
  'entityNeighbours',
  'lexicalProjectionState',
]);

/** A streaming replica the reads may use. */
export interface ReplicaMember {
  /** How logs, metrics and /readyz name it: host:port/database, never credentials. */
  name: string;
  store: MemoryStore;
  /** Seconds this replica is behind the primary's last replayed transaction (0 when caught up). */
  lagSeconds?: () => Promise<number>;
}

export interface ReplicatedStoreOptions {
  primary: MemoryStore;
  replicas: readonly ReplicaMember[];
  /** How long a read with `minRevision` waits for a replica to replay it. */
  minRevisionWaitMs: number;
  /** After the wait (or at once for `primary`): read the primary, or refuse with RevisionNotVisibleError. */
  minRevisionFallback: 'wait' | 'primary' | 'error';
  /** A replica that failed is left alone this long before reads try it again. Default 5 s. */
  retryDownAfterMs?: number;
  /** Told when a replica is skipped (down), for a warning in the log. */
  onReplicaDown?: (name: string, error: unknown) => void;
  /** Told where each routed read was served. */
  onRead?: (target: ReadTarget) => void;
}

/** Where a read was served: the primary, or a replica by name. */
export type ReadTarget = { kind: 'primary' } | { kind: 'replica'; name: string };

export interface ReadOutcome<T> {
  value: T;
  /** Where the read began; a replica that failed part way through hands the rest to the primary. */
  servedBy: ReadTarget;
}

/** One scope of a read, and the revision of it the read must see. */
export interface ReadTargetScope {
  scopeId: string;
  minRevision?: number;
}

/** The first of the scopes this store has not replayed up to its minRevision, with the revision it has. */
async function firstNotReplayed(
  store: MemoryStore,
  targets: readonly ReadTargetScope[],
): Promise<{ target: ReadTargetScope; revision: number } | undefined> {
  for (const target of targets) {
    const head = await store.head(target.scopeId);
    const revision = head?.revision ?? 0;
    if (revision < (target.minRevision ?? 0)) return { target, revision };
  }
  return undefined;
}

interface ReadState {
  member: ReplicaMember | undefined;
}

const POLL_MS = 20;

/**
 * A MemoryStore over a primary and its streaming replicas (RFC 0005, "More than one server"). Only
 * reads run inside `read()` go to a replica; every other call, including the reads a write makes
 * before it writes, goes to the primary. A replica that fails with a connection error is skipped (and
 * reported) for a while; with none left, the primary serves.
 */
export class ReplicatedStore {
  readonly store: MemoryStore;
  readonly #options: ReplicatedStoreOptions;
  readonly #context = new AsyncLocalStorage<ReadState>();
  readonly #downUntil = new Map<string, number>();
  #next = 0;

  constructor(options: ReplicatedStoreOptions) {
    this.#options = options;
    const primary = options.primary;
    this.store = new Proxy(primary, {
      get: (target, property, receiver) => {
        const value = Reflect.get(target, property, receiver);
        if (typeof value !== 'function') return value;
        if (property === 'close') return () => this.close();
        if (typeof property !== 'string' || !REPLICA_READS.has(property)) return value.bind(target);
        return (...args: unknown[]) => this.#route(property, args);
      },
    });
  }

  get replicas(): readonly ReplicaMember[] {
    return this.#options.replicas;
  }

  /**
   * Runs `work` (which reads through `this.store`) on a replica when one can serve it. With
   * `minRevision`, a replica is used only once it has that revision of the scope (waiting up to the
   * configured bound); otherwise the fallback decides. The primary itself must have `minRevision`, or
   * the read is refused with RevisionNotVisibleError (that revision was never written).
   */
  async read<T>(
    scopeId: string,
    minRevision: number | undefined,
    work: () => Promise<T>,
  ): Promise<ReadOutcome<T>> {
    return this.readScopes([{ scopeId, ...(minRevision === undefined ? {} : { minRevision }) }], work);
  }

  /**
   * `read` for a read of several scopes (a search of several scopes): one replica serves the whole
   * read, used only once it has every scope's `minRevision`; otherwise the fallback decides, and the
   * primary must have each of them.
   */
  async readScopes<T>(targets: readonly ReadTargetScope[], work: () => Promise<T>): Promise<ReadOutcome<T>> {
    const member = await this.#choose(targets);
    if (!member) {
      for (const { scopeId, minRevision } of targets) {
        if (minRevision !== undefined) await assertVisible(this.#options.primary, scopeId, minRevision);
      }
    }
    const state: ReadState = { member };
    const value = await this.#context.run(state, work);
    const servedBy: ReadTarget = member ? { kind: 'replica', name: member.name } : { kind: 'primary' };
    this.#options.onRead?.(servedBy);
    return { value, servedBy };
  }

  /** The replicas' lag, for /readyz and metrics; `undefined` lag = the replica did not answer. */
  async lag(): Promise<{ name: string; lagSeconds: number | undefined; down: boolean }[]> {
    return Promise.all(
      this.#options.replicas.map(async (replica) => {
        let lagSeconds: number | undefined;
        try {
          lagSeconds = replica.lagSeconds ? await replica.lagSeconds() : undefined;
        } catch {
          lagSeconds = undefined;
        }
        return { name: replica.name, lagSeconds, down: this.#isDown(replica) };
      }),
    );
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.#options.replicas.map((replica) => replica.store.close()));
    await this.#options.primary.close();
  }

  async #choose(targets: readonly ReadTargetScope[]): Promise<ReplicaMember | undefined> {
    const { minRevisionWaitMs, minRevisionFallback } = this.#options;
    const waiting = targets.filter((target) => target.minRevision !== undefined);
    const deadline = performance.now() + (minRevisionFallback === 'primary' ? 0 : minRevisionWaitMs);
    // The first scope a replica lacked, and the best revision of it the replicas had, for the refusal.
    let lacking = waiting[0];
    let visible = 0;
    for (;;) {
      const candidates = this.#up();
      if (candidates.length === 0) return undefined;
      if (waiting.length === 0) return candidates[0];
      let waited = false;
      for (const replica of candidates) {
        try {
          const missing = await firstNotReplayed(replica.store, waiting);
          if (!missing) return replica;
          if (missing.target !== lacking) [lacking, visible] = [missing.target, 0];
          visible = Math.max(visible, missing.revision);
        } catch (error) {
          if (!this.#markDown(replica, error)) throw error;
          waited = true;
        }
      }
      if (performance.now() >= deadline) break;
      if (!waited) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    if (minRevisionFallback === 'error' && lacking) {
      const { scopeId, minRevision = 1 } = lacking;
      throw new RevisionNotVisibleError(
        scopeId,
        minRevision,
        visible,
        `Revision ${minRevision} of scope "${scopeId}" was not replayed by a read replica within ${minRevisionWaitMs} ms (the replicas have revision ${visible})`,
      );
    }
    return undefined;
  }

  /** The replicas that are not marked down, starting at the next in turn. */
  #up(): ReplicaMember[] {
    const replicas = this.#options.replicas;
    if (replicas.length === 0) return [];
    const start = this.#next++ % replicas.length;
    const ordered = [...replicas.slice(start), ...replicas.slice(0, start)];
    return ordered.filter((replica) => !this.#isDown(replica));
  }

  #isDown(replica: ReplicaMember): boolean {
    const until = this.#downUntil.get(replica.name);
    return until !== undefined && until > performance.now();
  }

  /** Marks a replica down after a connection failure; false when the error is not one. */
  #markDown(replica: ReplicaMember, error: unknown): boolean {
    const unavailable =
      error instanceof StoreUnavailableError ||
      (!PowerContextError.isInstance(error) && isUnavailable(error));
    if (!unavailable) return false;
    if (!this.#isDown(replica)) this.#options.onReplicaDown?.(replica.name, error);
    this.#downUntil.set(replica.name, performance.now() + (this.#options.retryDownAfterMs ?? 5_000));
    return true;
  }

  async #route(method: string, args: unknown[]): Promise<unknown> {
    const state = this.#context.getStore();
    const call = (store: MemoryStore) =>
      (store as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[method]!.apply(store, args);
    const member = state?.member;
    if (!member) return call(this.#options.primary);
    try {
      return await call(member.store);
    } catch (error) {
      if (!this.#markDown(member, error)) throw error;
      // The rest of this read, and this call, go to the primary, which has every revision the replica had.
      state.member = undefined;
      return call(this.#options.primary);
    }
  }
}

async function assertVisible(store: MemoryStore, scopeId: string, minRevision: number): Promise<void> {
  const head = await store.head(scopeId);
  const revision = head?.revision ?? 0;
  if (revision < minRevision) throw new RevisionNotVisibleError(scopeId, minRevision, revision);
}

/** The check of `minRevision` against a single store (no replicas): it must hold the revision. */
export { assertVisible as assertRevisionVisible };
