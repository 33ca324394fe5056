import type { ScopeTombstone } from '../domain/scope-deletion.js';
import { PowerContextError } from './powercontext-error.js';

/**
 * The scope was deleted (RFC 0015): every entry of it was erased, at every revision, and its name stays
 * taken. Raised by every read and write of the scope (`head`, search, list, get, changes, remember...).
 */
export class ScopePurgedError extends PowerContextError {
  readonly tombstone: ScopeTombstone;

  constructor(tombstone: ScopeTombstone) {
    super('scope_purged', `Scope "${tombstone.scopeId}" was deleted at ${tombstone.deletedAt}`);
    this.tombstone = tombstone;
  }
}
