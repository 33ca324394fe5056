import { PowerContextError } from './powercontext-error.js';

export interface FieldIssue {
  /** Dotted path of the offending field, e.g. `entries.3.text`. */
  field: string;
  /** The rule that failed, in words. */
  rule: string;
}

/** Input that breaks a documented rule. Nothing was read or written. */
export class ValidationError extends PowerContextError {
  readonly issues: readonly FieldIssue[];

  constructor(issues: readonly FieldIssue[]) {
    const first = issues[0];
    const summary = first ? `${first.field}: ${first.rule}` : 'invalid request';
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
    super('invalid_request', `Invalid request: ${summary}${more}`);
    this.issues = issues;
  }

  static isValidationError(value: unknown): value is ValidationError {
    return PowerContextError.isInstance(value) && value.code === 'invalid_request';
  }
}
