import { InMemoryMemoryStore } from '@powercontext/memory-core/testing';
import { describe, expect, it } from 'vitest';
import { createRuntime } from './create-runtime.js';
import type { ReadGate } from './scoped-memory.js';

// Issue 28: the server's search lane is the read's gate, and a read waiting for its min_revision must
// not hold it. Replicas are covered by the server's min-revision-lanes test (PostgreSQL).

describe('ReadOptions.gate', () => {
  it('runs the work of every read inside the gate, once, after min_revision is checked', async () => {
    const runtime = await createRuntime({ env: {}, store: new InMemoryMemoryStore() });
    try {
      const memory = runtime.memory.forScope('gated');
      const written = await memory.remember({ entries: [{ text: 'gated reads of harbour notes' }] });
      const entryId = written.entries[0]!.entryId;
      const events: string[] = [];
      const gate: ReadGate = async (work) => {
        events.push('gate');
        const value = await work();
        events.push('done');
        return value;
      };
      const options = { gate, minRevision: written.memory.revision };
      const found = await memory.search({ query: 'harbour notes', mode: 'fts' }, options);
      expect(found.hits.map((hit) => hit.citation.entryId)).toEqual([entryId]);
      await memory.prepareContext({ query: 'harbour notes', mode: 'fts' }, options);
      await memory.list({}, options);
      await memory.get({ entryId }, options);
      await memory.changes({}, options);
      expect(events).toEqual(Array.from({ length: 5 }, () => ['gate', 'done']).flat());
    } finally {
      await runtime.close();
    }
  });

  it('never enters the gate for a read refused for its min_revision', async () => {
    const runtime = await createRuntime({ env: {}, store: new InMemoryMemoryStore() });
    try {
      const memory = runtime.memory.forScope('gated');
      const written = await memory.remember({ entries: [{ text: 'one revision only' }] });
      let entered = 0;
      const gate: ReadGate = (work) => {
        entered += 1;
        return work();
      };
      await expect(
        memory.search({ query: 'revision' }, { gate, minRevision: written.memory.revision + 1 }),
      ).rejects.toMatchObject({ code: 'revision_not_visible' });
      await expect(memory.list({}, { gate, minRevision: 0 })).rejects.toMatchObject({
        code: 'invalid_request',
        issues: [{ field: 'minRevision' }],
      });
      expect(entered).toBe(0);
    } finally {
      await runtime.close();
    }
  });
});
