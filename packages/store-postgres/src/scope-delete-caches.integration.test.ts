import { randomUUID } from 'node:crypto';
import { MemoryService, ScopePurgedError } from '@powercontext/memory-core';
import { createFakeEmbedder } from '@powercontext/memory-core/testing';
import { createRrfRetrievalPolicy } from '@powercontext/retrieval-rrf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LexicalIndexCache } from './lexical-index-cache.js';
import { PostgresMemoryStore } from './postgres-memory-store.js';
import { type MigratedBackend, openMigratedPostgres } from './testing-support/migrated-backends.js';
import { VectorIndexCache } from './vector-index-cache.js';

/**
 * Deleting a scope (RFC 0015) drops the indexes in memory that hold it: at once in the process that
 * deleted it, and at the next search in another process over the same database (two stores here),
 * which then answers scope_purged instead of searching what it held.
 */
describe('deleting a scope drops its indexes in memory (PostgreSQL, two processes)', () => {
  let backend: MigratedBackend;
  const embedder = createFakeEmbedder();
  const policy = createRrfRetrievalPolicy();

  function storeWithCaches() {
    const lexical = new LexicalIndexCache({ minSearches: 1 });
    const vector = new VectorIndexCache({ minSearches: 1 });
    const store = new PostgresMemoryStore({
      db: backend.db,
      textSearchConfig: 'english',
      lexicalIndexCache: lexical,
      vectorIndexCache: vector,
    });
    return {
      store,
      lexical,
      vector,
      service: new MemoryService({ store, embedder, retrievalPolicy: policy }),
    };
  }

  /** Searches until both caches hold the scope's index (their reads run in the background). */
  async function warm(part: ReturnType<typeof storeWithCaches>, scopeId: string) {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      await part.service.search(scopeId, { query: 'lantern harbour' });
      if (part.lexical.latest(scopeId) && part.vector.latest(scopeId, embedder.profile.id)) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error('the indexes were never read into memory');
  }

  beforeAll(async () => {
    backend = await openMigratedPostgres();
    const { store } = storeWithCaches();
    await store.prepareEmbeddingProfile(embedder.profile);
  });
  afterAll(async () => {
    await backend?.close();
  });

  it('drops them in the deleting process and in another at its next search', async () => {
    const scopeId = `cached-${randomUUID()}`;
    const one = storeWithCaches();
    const other = storeWithCaches();
    await one.service.remember(scopeId, {
      entries: Array.from({ length: 40 }, (_, i) => ({ text: `lantern ${i} by the harbour wall` })),
    });
    await warm(one, scopeId);
    await warm(other, scopeId);
    const result = await one.service.deleteScope(scopeId, { deletedBy: 'test' });
    expect(result.status).toBe('deleted');
    expect(one.lexical.latest(scopeId)).toBeUndefined();
    expect(one.vector.latest(scopeId, embedder.profile.id)).toBeUndefined();
    // The other process still holds them until it looks at the scope again.
    expect(other.lexical.latest(scopeId)).toBeDefined();
    await expect(other.service.search(scopeId, { query: 'lantern harbour' })).rejects.toBeInstanceOf(
      ScopePurgedError,
    );
    expect(other.lexical.latest(scopeId)).toBeUndefined();
    expect(other.vector.latest(scopeId, embedder.profile.id)).toBeUndefined();
  });
});
