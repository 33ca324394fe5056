import { MemoryService } from '@powercontext/memory-core';
import { createFakeEmbedder, InMemoryMemoryStore, noSearchPolicy } from '@powercontext/memory-core/testing';
import { createRuntime } from '@powercontext/runtime';
import { describe, expect, it } from 'vitest';
import { reembedAll } from './reembed-all.js';

describe('reembedAll', () => {
  it('fills the vectors of a new profile in every scope, and finds nothing left on a second run', async () => {
    const store = new InMemoryMemoryStore();
    const old = new MemoryService({ store, embedder: createFakeEmbedder(), retrievalPolicy: noSearchPolicy });
    await old.remember('a', { entries: [{ text: 'alpha one' }, { text: 'alpha two' }] });
    await old.remember('b', { entries: [{ text: 'beta' }] });
    const runtime = await createRuntime({ env: {}, store });
    try {
      expect((await runtime.memory.forScope('a').search({ query: 'alpha' })).mode).toBe('fts');
      expect(await reembedAll(runtime)).toEqual(
        new Map([
          ['a', 2],
          ['b', 1],
        ]),
      );
      expect(await reembedAll(runtime)).toEqual(new Map());
      expect((await runtime.memory.forScope('a').search({ query: 'alpha' })).mode).toBe('hybrid');
    } finally {
      await runtime.close();
    }
  });
});
