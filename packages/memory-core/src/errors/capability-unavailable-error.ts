import { PowerContextError } from './powercontext-error.js';

export type Capability = 'vector_index' | 'query_embedding';

/** An explicitly requested search mode needs a capability the scope does not have right now. */
export class CapabilityUnavailableError extends PowerContextError {
  readonly capability: Capability;

  constructor(capability: Capability, detail: string, options: { cause?: unknown } = {}) {
    super('capability_unavailable', `Capability ${capability} is unavailable: ${detail}`, options);
    this.capability = capability;
  }
}
