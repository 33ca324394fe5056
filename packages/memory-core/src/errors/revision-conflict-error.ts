import { PowerContextError } from './powercontext-error.js';

/** The scope's head moved between read and write. Retrying the whole operation is safe. */
export class RevisionConflictError extends PowerContextError {
  readonly scopeId: string;
  readonly expectedRevision: number;

  constructor(scopeId: string, expectedRevision: number, options: { cause?: unknown } = {}) {
    super(
      'revision_conflict',
      `Scope "${scopeId}" moved past revision ${expectedRevision} during the write`,
      {
        ...options,
        retryable: true,
      },
    );
    this.scopeId = scopeId;
    this.expectedRevision = expectedRevision;
  }
}
