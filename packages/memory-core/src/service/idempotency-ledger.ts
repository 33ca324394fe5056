import { requestDigest, storedIdempotencyKey } from '../domain/idempotency.js';
import { IdempotencyKeyReusedError } from '../errors/idempotency-key-reused-error.js';
import type { MemoryStore, MemoryWriteTransaction, RevisionOperation } from '../ports/memory-store.port.js';

/** How a caller steers one write: its idempotency key, and what happens when it gives up waiting. */
export interface WriteOptions {
  /**
   * Makes the write idempotent in its scope for the retention time (default 24 h): a repeat with the
   * same key and the same request returns the first result, marked `replayed`, and writes nothing; the
   * same key with another request (another operation or body) throws IdempotencyKeyReusedError.
   * 1-255 visible ASCII characters; a random UUID per logical write is a good key.
   */
  idempotencyKey?: string;
  /**
   * Whose idempotency key it is: the server passes the API key's id. Records are kept per owner, so
   * another owner's write with the same key is a write of its own, never replayed from nor refused by
   * this one's record. Without it (the runtime in process, the command line, a keyless server) keys
   * share the scope's own namespace, as they always did. 1-255 characters; ignored without a key.
   */
  idempotencyOwner?: string;
  /**
   * Abandons the write while its transaction has not begun: it then rejects with the abort reason and
   * nothing is written. Once the transaction has begun (see `onTransactionBegin`) the write runs to its
   * end, commit or rollback, whatever the signal says.
   */
  signal?: AbortSignal;
  /**
   * Called once, synchronously, just before the write's transaction begins. From then on the write may
   * commit even if the caller stops waiting; a caller that gives up must say the outcome is unknown.
   */
  onTransactionBegin?: (progress: WriteProgress) => void;
}

export interface WriteProgress {
  scopeId: string;
  /** The head the write starts from (0: never written). If it commits, the changes after it show it. */
  headRevision: number;
}

/** A caller's idempotency key, and whose it is (undefined: the scope's shared namespace). */
export interface IdempotencyKeyOf {
  key: string;
  owner?: string | undefined;
}

/** A write that carries an idempotency key: the key, and what it must match on a retry. */
export interface KeyedWrite {
  /** The key as the caller sent it, for messages. */
  key: string;
  /** The key the record is stored under: the caller's, in its owner's namespace (storedIdempotencyKey). */
  storedKey: string;
  operation: RevisionOperation;
  digest: string;
}

/** Marks a result as the stored answer of an earlier write with the same idempotency key. */
export type Replayed<Result> = Result & { replayed: true };

/**
 * The idempotency records of writes: finds the first result of a key (or refuses a key reused for
 * another request), and records a result in the write's own transaction, with its expiry.
 */
export class IdempotencyLedger {
  readonly #store: MemoryStore;
  readonly #clock: () => Date;
  readonly #retentionMs: number;

  constructor(store: MemoryStore, clock: () => Date, retentionMs: number) {
    this.#store = store;
    this.#clock = clock;
    this.#retentionMs = retentionMs;
  }

  /** The keyed form of a write whose parsed input is `input`; undefined without a key. */
  keyed(
    operation: RevisionOperation,
    input: unknown,
    key: IdempotencyKeyOf | undefined,
  ): KeyedWrite | undefined {
    if (key === undefined) return undefined;
    return {
      key: key.key,
      storedKey: storedIdempotencyKey(key.key, key.owner),
      operation,
      digest: requestDigest(operation, input),
    };
  }

  /**
   * The first result of the key in the scope (in its owner's namespace), if a write with it committed
   * and its record has not expired. Throws IdempotencyKeyReusedError when that write was another
   * request.
   */
  async replay<Result>(
    scopeId: string,
    keyed: KeyedWrite | undefined,
  ): Promise<Replayed<Result> | undefined> {
    if (!keyed) return undefined;
    const record = await this.#store.idempotencyRecord(scopeId, keyed.storedKey, this.#clock());
    if (!record) return undefined;
    if (record.operation !== keyed.operation || record.requestDigest !== keyed.digest) {
      throw new IdempotencyKeyReusedError(scopeId, keyed.key);
    }
    return { ...(JSON.parse(record.result) as Result), replayed: true };
  }

  /** Records `result` under the key in the write's transaction (nothing without a key). */
  async record(tx: MemoryWriteTransaction, keyed: KeyedWrite | undefined, result: unknown): Promise<void> {
    if (!keyed) return;
    const createdAt = this.#clock();
    await tx.recordIdempotency({
      key: keyed.storedKey,
      operation: keyed.operation,
      requestDigest: keyed.digest,
      result: JSON.stringify(result),
      createdAt,
      expiresAt: new Date(createdAt.getTime() + this.#retentionMs),
    });
  }
}

/** The key of batch `batch` (1-based) of an import run with `key`: each batch is one keyed remember. */
export function importBatchKey(key: string, batch: number): string {
  return `${key}#${batch}`;
}
