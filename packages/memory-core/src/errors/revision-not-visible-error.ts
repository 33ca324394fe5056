import { PowerContextError } from './powercontext-error.js';

/**
 * A read asked for `minRevision` of a scope and the database that serves it has not got that revision:
 * a read replica that had not replayed it within the configured wait, or no database has it yet (the
 * revision was never written). Retrying later may succeed.
 */
export class RevisionNotVisibleError extends PowerContextError {
  readonly scopeId: string;
  readonly minRevision: number;
  /** The newest revision of the scope the serving database had; 0 when it had none. */
  readonly visibleRevision: number;

  constructor(scopeId: string, minRevision: number, visibleRevision: number, message?: string) {
    super(
      'revision_not_visible',
      message ??
        `Revision ${minRevision} of scope "${scopeId}" is not visible yet (the database read has revision ${visibleRevision})`,
      { retryable: true },
    );
    this.scopeId = scopeId;
    this.minRevision = minRevision;
    this.visibleRevision = visibleRevision;
  }
}
