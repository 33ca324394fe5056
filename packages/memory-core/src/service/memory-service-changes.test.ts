import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../errors/not-found-error.js';
import { ValidationError } from '../errors/validation-error.js';
import { createFakeEmbedder } from '../testing/fake-embedder.js';
import { InMemoryMemoryStore } from '../testing/in-memory-store.js';
import { noSearchPolicy } from '../testing/no-search-policy.js';
import { MemoryService } from './memory-service.js';

/** A scope at revision 4: one remember, then three revisions of the same entry. */
async function scopeAtRevision4() {
  const service = new MemoryService({
    store: new InMemoryMemoryStore(),
    embedder: createFakeEmbedder(),
    retrievalPolicy: noSearchPolicy,
  });
  const written = await service.remember('s', { entries: [{ text: 'one' }] });
  const entryId = written.entries[0]!.entryId;
  for (const text of ['two', 'three', 'four']) await service.revise('s', { entryId, text });
  return service;
}

describe('changes: one rule for from_revision and to_revision (0 <= from <= to <= latest)', () => {
  it('answers the versions written in (from, to]', async () => {
    const service = await scopeAtRevision4();
    const page = await service.changes('s', { fromRevision: 1, toRevision: 3 });
    expect(page.changes.map((change) => change.revision)).toEqual([2, 3]);
    expect((await service.changes('s', { fromRevision: 4 })).changes).toEqual([]);
    expect((await service.changes('s', { fromRevision: 2, toRevision: 2 })).changes).toEqual([]);
  });

  it('answers not_found for either bound past the latest revision', async () => {
    const service = await scopeAtRevision4();
    await expect(service.changes('s', { toRevision: 99 })).rejects.toThrow(NotFoundError);
    // On 6a3d005 this answered an empty page, while to_revision 99 answered not_found.
    await expect(service.changes('s', { fromRevision: 99 })).rejects.toThrow(NotFoundError);
    await expect(service.changes('s', { fromRevision: 5 })).rejects.toThrow('No revision "5" in this scope');
  });

  it('refuses from above to as invalid, naming the field', async () => {
    const service = await scopeAtRevision4();
    // On 6a3d005 this answered an empty page.
    const failure = await service.changes('s', { fromRevision: 4, toRevision: 2 }).catch((error) => error);
    expect(failure).toBeInstanceOf(ValidationError);
    expect((failure as ValidationError).issues).toEqual([
      { field: 'fromRevision', rule: 'fromRevision must be at most toRevision (2)' },
    ]);
  });

  it('treats a scope never written as being at revision 0', async () => {
    const service = await scopeAtRevision4();
    const empty = await service.changes('empty', {});
    expect(empty.memory).toBeUndefined();
    expect(empty).toMatchObject({ fromRevision: 0, toRevision: 0, changes: [] });
    await expect(service.changes('empty', { toRevision: 1 })).rejects.toThrow(NotFoundError);
    await expect(service.changes('empty', { fromRevision: 1 })).rejects.toThrow(NotFoundError);
  });
});
