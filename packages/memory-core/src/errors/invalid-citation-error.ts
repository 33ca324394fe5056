import { PowerContextError } from './powercontext-error.js';

/** A citation that does not name an existing entry version at the cited revision of this memory. */
export class InvalidCitationError extends PowerContextError {
  readonly reason: string;

  constructor(reason: string) {
    super('invalid_citation', `Invalid citation: ${reason}`);
    this.reason = reason;
  }
}
