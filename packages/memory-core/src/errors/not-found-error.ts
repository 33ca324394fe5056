import { PowerContextError } from './powercontext-error.js';

export type MissingThing = 'memory' | 'entry' | 'entry_version' | 'revision';

/** A named memory, entry, version or revision does not exist in the scope. */
export class NotFoundError extends PowerContextError {
  readonly what: MissingThing;
  readonly id: string;

  constructor(what: MissingThing, id: string) {
    super('not_found', `No ${what.replace('_', ' ')} "${id}" in this scope`);
    this.what = what;
    this.id = id;
  }
}
