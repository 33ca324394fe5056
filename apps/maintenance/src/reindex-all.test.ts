import { InMemoryMemoryStore } from '@powercontext/memory-core/testing';
import { createRuntime } from '@powercontext/runtime';
import { describe, expect, it } from 'vitest';
import { reindexAll } from './reindex-all.js';

const turns = (scopeId: string) =>
  ['the ferry leaves at noon', 'bring the blue umbrella', 'we met the harbour master'].map((text, turn) => ({
    text,
    position: { sourceId: `${scopeId}:session-1`, order: turn },
  }));

describe('reindexAll', () => {
  it('re-projects every scope after the context weights change, and finds nothing left on a second run', async () => {
    const store = new InMemoryMemoryStore();
    const plain = await createRuntime({
      env: { POWERCONTEXT_SERVER_RUNTIME_MEMORY_LEXICAL_CONTEXT_WEIGHTS: 'none' },
      store,
    });
    await plain.memory.forScope('a').remember({ entries: turns('a') });
    await plain.memory.forScope('b').remember({ entries: turns('b').slice(0, 2) });
    // "umbrella" is only in the second turn: without context only that turn matches.
    const umbrella = async (runtime: typeof plain) =>
      (await runtime.memory.forScope('a').search({ query: 'umbrella', mode: 'fts' })).hits.map((h) => h.text);
    expect(await umbrella(plain)).toEqual(['bring the blue umbrella']);

    const contextual = await createRuntime({ env: {}, store });
    try {
      expect(await contextual.memory.lexicalIndexState('a')).toMatchObject({ stale: 3, complete: false });
      expect(await reindexAll(contextual)).toEqual(
        new Map([
          ['a', 3],
          ['b', 2],
        ]),
      );
      expect(await reindexAll(contextual)).toEqual(new Map());
      expect(await contextual.memory.lexicalIndexState('a')).toMatchObject({ stale: 0, complete: true });
      // Now its neighbours carry its words too, ranked below it.
      const hits = await umbrella(contextual);
      expect(hits[0]).toBe('bring the blue umbrella');
      expect(hits.slice(1).sort()).toEqual(['the ferry leaves at noon', 'we met the harbour master']);
    } finally {
      await contextual.close();
      await plain.close();
    }
  });
});
