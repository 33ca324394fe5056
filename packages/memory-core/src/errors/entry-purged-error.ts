import type { PurgeInfo } from '../domain/purge.js';
import { PowerContextError } from './powercontext-error.js';

/**
 * The entry was purged: every version of it was erased, and no revision can answer with its text any
 * more. Raised by reads and writes that name it (`get` at a revision it existed at, `revise`,
 * `forget`, `reactivate`). Citation resolution answers a value with `status: 'purged'` instead.
 */
export class EntryPurgedError extends PowerContextError {
  readonly entryId: string;
  readonly purge: PurgeInfo;

  constructor(entryId: string, purge: PurgeInfo) {
    super('entry_purged', `Entry "${entryId}" was purged at revision ${purge.revision}`);
    this.entryId = entryId;
    this.purge = purge;
  }
}
