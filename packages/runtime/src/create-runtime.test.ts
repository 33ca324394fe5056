import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SearchChannel } from '@powercontext/memory-core';
import { InMemoryMemoryStore } from '@powercontext/memory-core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime } from './create-runtime.js';

const dataDir = mkdtempSync(join(tmpdir(), 'pc-runtime-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('createRuntime', () => {
  it('composes the embedded default from the environment and serves the scoped API', async () => {
    const runtime = await createRuntime({ env: { POWERCONTEXT_SERVER_DATA_DIR: dataDir } });
    try {
      expect(runtime.capabilities()).toMatchObject({
        store: 'pglite',
        embeddingProfile: { id: 'powercontext.local-hash.v2@1024', dimension: 1024 },
        retrievalPolicyId:
          'powercontext.retrieval.rrf.v3(k1=0.8,b=0,delta=0.5;context=0.35,0.175;rrf_k=60;weights=1,0.1;fetch=4x32;lexical_fallback=on)',
        lexicalProjectionId: 'powercontext.lexical.neighbours.v1(0.35,0.175)',
        searchChannels: ['fts', 'vector'],
      });
      const memory = runtime.memory.forScope('project');
      const written = await memory.remember({
        entries: [{ text: 'We deploy on Fridays only after the freeze review.' }],
      });
      const result = await memory.search({ query: 'when do we deploy?' });
      expect(result.mode).toBe('hybrid');
      expect(result.hits[0]?.citation.entryId).toBe(written.entries[0]!.entryId);
      expect(await runtime.memory.scopes()).toEqual(['project']);
    } finally {
      await runtime.close();
    }
  });

  it('holds indexes in memory within POWERCONTEXT_SERVER_STORE_INDEX_MEMORY_MB, and none at 0', async () => {
    const held = await createRuntime({ env: { POWERCONTEXT_SERVER_DATA_DIR: dataDir } });
    try {
      expect((await held.status?.())?.indexes).toMatchObject({
        lexical: { answered: 0, refused: 0 },
        vector: { answered: 0, refused: 0 },
      });
    } finally {
      await held.close();
    }
    const none = await createRuntime({
      env: { POWERCONTEXT_SERVER_DATA_DIR: dataDir, POWERCONTEXT_SERVER_STORE_INDEX_MEMORY_MB: '0' },
    });
    try {
      expect((await none.status?.())?.indexes).toEqual({ backgroundReadsPeak: 0 });
    } finally {
      await none.close();
    }
  });

  it('uses an injected store instead of opening one', async () => {
    const store = new InMemoryMemoryStore();
    const runtime = await createRuntime({ env: {}, store });
    expect(runtime.capabilities().store).toBe('custom');
    await runtime.memory.forScope('s').remember({ entries: [{ text: 'injected' }] });
    expect((await store.head('s'))?.revision).toBe(1);
    await runtime.close();
  });

  it('runs the entity and graph channels when configured, and an application’s own channel', async () => {
    const seen: string[] = [];
    let known: { entryId: string; entryVersionId: string }[] = [];
    // An application's channel: it names every entry it was told of, whatever the query.
    const everything: SearchChannel = {
      name: 'everything',
      id: 'test.everything.v1',
      needs: 'text',
      async search({ scopeId, limit }) {
        seen.push(scopeId);
        return {
          candidates: known.slice(0, limit).map(({ entryId, entryVersionId }, index) => ({
            entryId,
            entryVersionId,
            rank: index + 1,
            score: 1,
          })),
        };
      },
    };
    const runtime = await createRuntime({
      env: { POWERCONTEXT_SERVER_RUNTIME_MEMORY_SEARCH_CHANNELS: 'fts,vector,graph,entity' },
      store: new InMemoryMemoryStore(),
      searchChannels: [everything],
    });
    try {
      expect(runtime.capabilities().searchChannels).toEqual([
        'fts',
        'vector',
        'entity',
        'graph',
        'everything',
      ]);
      expect(runtime.capabilities().retrievalPolicyId).toContain(
        ';channels=fts:1,vector:0.1,entity:1,graph:0.5,everything:1)',
      );
      const memory = runtime.memory.forScope('ops');
      const written = await memory.remember({
        entries: [{ text: 'ACME-7 broke payments-api.' }, { text: 'Lunch is at noon.' }],
      });
      known = written.entries;
      const { hits } = await memory.search({ query: 'what broke in ACME-7?' });
      expect(hits[0]).toMatchObject({ text: 'ACME-7 broke payments-api.' });
      expect(hits[0]!.matchedBy).toEqual(expect.arrayContaining(['fts', 'entity', 'everything']));
      expect(hits.find((hit) => hit.text === 'Lunch is at noon.')?.matchedBy).toContain('everything');
      expect(seen).toEqual(['ops']);
    } finally {
      await runtime.close();
    }
  });

  it('fails at start-up on invalid configuration, before opening anything', async () => {
    await expect(
      createRuntime({ env: { POWERCONTEXT_SERVER_RUNTIME_MEMORY_WRITE_MAX_ATTEMPTS: '100' } }),
    ).rejects.toMatchObject({
      code: 'configuration_error',
      setting: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_WRITE_MAX_ATTEMPTS',
    });
  });
});
