import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryStore } from '../ports/memory-store.port.js';
import type { RetrievalPolicy } from '../ports/retrieval-policy.port.js';
import { RerankStage } from '../rerank/rerank-stage.js';
import { MemoryService } from '../service/memory-service.js';
import { createFakeEmbedder } from './fake-embedder.js';
import { createBarrier, createScriptedReranker } from './scripted-reranker.js';

export interface SearchContractOptions {
  createStore: () => Promise<MemoryStore>;
  retrievalPolicy: RetrievalPolicy;
}

const CONVERSATION = [
  'Caroline: I went to the LGBTQ support group yesterday and it was powerful.',
  'Melanie: I ran a charity race for mental health last Saturday.',
  'Caroline: I am researching adoption agencies because I want to build a family.',
  'Melanie: My kids love the beach; we go camping every summer.',
  'Caroline: The transgender stories at the support group were so inspiring.',
  'Melanie: I painted a lake sunrise last year, painting relaxes me.',
];

/** The search-service contract over a real store: modes, admission, fusion, scope and revision consistency. */
export function describeSearchContract(name: string, options: SearchContractOptions) {
  describe(`search contract: ${name}`, () => {
    let store: MemoryStore;
    const embedder = createFakeEmbedder();
    let service: MemoryService;
    const scopeId = `search-${randomUUID()}`;

    beforeAll(async () => {
      store = await options.createStore();
      await store.prepareEmbeddingProfile(embedder.profile);
      service = new MemoryService({ store, embedder, retrievalPolicy: options.retrievalPolicy });
      await service.remember(scopeId, { entries: CONVERSATION.map((text) => ({ text })) });
      await service.remember(`search-other-${randomUUID()}`, {
        entries: [{ text: 'Caroline support group elsewhere' }],
      });
    });
    afterAll(async () => {
      await store?.close();
    });

    it('auto mode is hybrid when the vector index is complete, and cites one revision', async () => {
      const result = await service.search(scopeId, { query: '  support\u00a0group   Caroline ', limit: 3 });
      expect(result.requestedMode).toBe('auto');
      expect(result.mode).toBe('hybrid');
      expect(result.hits.length).toBeGreaterThan(0);
      expect(result.hits.length).toBeLessThanOrEqual(3);
      expect(result.hits[0]!.text).toContain('support group');
      for (const hit of result.hits) {
        expect(hit.citation).toMatchObject({
          artifactId: result.memory!.artifactId,
          revision: result.memory!.revision,
        });
        expect(hit.text).toBe(hit.entry.text);
      }
      expect(
        result.hits.some((hit) => hit.matchedBy.includes('fts') && hit.matchedBy.includes('vector')),
      ).toBe(true);
      const scores = result.hits.map((hit) => hit.score);
      expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    });

    it('fts mode uses only the lexical channel with OR semantics over the query words', async () => {
      const result = await service.search(scopeId, {
        query: 'what did Melanie paint at the lake?',
        mode: 'fts',
      });
      expect(result.mode).toBe('fts');
      expect(result.hits[0]!.text).toContain('lake sunrise');
      for (const hit of result.hits) {
        expect(hit.matchedBy).toEqual(['fts']);
        expect(hit.channelRanks.fts).toBeGreaterThan(0);
        expect(hit.channelRanks.vector).toBeUndefined();
      }
    });

    it('vector mode uses only the vector channel', async () => {
      const result = await service.search(scopeId, {
        query: 'beach camping summer',
        mode: 'vector',
        limit: 2,
      });
      expect(result.mode).toBe('vector');
      expect(result.hits[0]!.text).toContain('camping');
      expect(result.hits.every((hit) => hit.matchedBy.length === 1 && hit.matchedBy[0] === 'vector')).toBe(
        true,
      );
    });

    it('never returns entries of another scope', async () => {
      const result = await service.search(scopeId, { query: 'elsewhere', mode: 'hybrid', limit: 50 });
      expect(result.hits.every((hit) => !hit.text.includes('elsewhere'))).toBe(true);
    });

    it('returns results identical for identical requests (deterministic ties)', async () => {
      const a = await service.search(scopeId, { query: 'Caroline Melanie', limit: 6 });
      const b = await service.search(scopeId, { query: 'Caroline Melanie', limit: 6 });
      expect(a.hits.map((h) => h.citation)).toEqual(b.hits.map((h) => h.citation));
    });

    it('auto falls back to fts when the query cannot be embedded, and says so', async () => {
      const failing = createFakeEmbedder({
        failWith: (texts) =>
          texts.length === 1 && texts[0]!.startsWith('adoption') ? new Error('provider down') : undefined,
      });
      const degraded = new MemoryService({
        store,
        embedder: failing,
        retrievalPolicy: options.retrievalPolicy,
      });
      const result = await degraded.search(scopeId, { query: 'adoption agencies' });
      expect(result.mode).toBe('fts');
      expect(result.fallback).toEqual({ from: 'hybrid', to: 'fts', reason: 'query_embedding_failed' });
      expect(result.hits[0]!.text).toContain('adoption');
      await expect(
        degraded.search(scopeId, { query: 'adoption agencies', mode: 'hybrid' }),
      ).rejects.toMatchObject({
        code: 'capability_unavailable',
        capability: 'query_embedding',
      });
    });

    it('uses fts in auto mode and refuses vector modes while the index is incomplete for the profile', async () => {
      const newProfile = createFakeEmbedder({ profile: { id: 'test.bag-of-words.v2' } });
      const switched = new MemoryService({
        store,
        embedder: newProfile,
        retrievalPolicy: options.retrievalPolicy,
      });
      const auto = await switched.search(scopeId, { query: 'painting' });
      expect(auto.mode).toBe('fts');
      await expect(switched.search(scopeId, { query: 'painting', mode: 'vector' })).rejects.toMatchObject({
        code: 'capability_unavailable',
        capability: 'vector_index',
      });
      await store.prepareEmbeddingProfile(newProfile.profile);
      expect(await switched.reembed(scopeId)).toBe(CONVERSATION.length);
      expect((await switched.search(scopeId, { query: 'painting' })).mode).toBe('hybrid');
    });

    it('reranks without holding the scope lock: N searches are in the model at once', async () => {
      const inFlight = 4;
      const barrier = createBarrier(inFlight);
      const reranker = createScriptedReranker({
        decide: async () => {
          await barrier.arrive();
          return [1];
        },
      });
      const reranking = new MemoryService({
        store,
        embedder,
        retrievalPolicy: options.retrievalPolicy,
        rerankStage: new RerankStage({ reranker, maxInFlight: 8 }),
      });
      const results = await Promise.all(
        Array.from({ length: inFlight }, () => reranking.search(scopeId, { query: 'Caroline', limit: 2 })),
      );
      expect(reranker.calls).toHaveLength(inFlight);
      for (const result of results) expect(result.trace?.selectedRanks).toEqual([1]);
    });

    it('a write that lands while a rerank is paused leaves the result citing one complete revision', async () => {
      const pausedScope = `paused-${randomUUID()}`;
      await service.remember(pausedScope, { entries: CONVERSATION.map((text) => ({ text })) });
      let resume!: () => void;
      const paused = new Promise<void>((resolve) => {
        resume = resolve;
      });
      let entered!: () => void;
      const reached = new Promise<void>((resolve) => {
        entered = resolve;
      });
      const reranker = createScriptedReranker({
        decide: async (_query, candidates) => {
          entered();
          await paused;
          return candidates.map((_, index) => candidates.length - index);
        },
      });
      const reranking = new MemoryService({
        store,
        embedder,
        retrievalPolicy: options.retrievalPolicy,
        rerankStage: new RerankStage({ reranker, candidateLimit: 10 }),
      });
      const searching = reranking.search(pausedScope, { query: 'Caroline support group', limit: 3 });
      await reached;
      // The scope is not locked by the search: this write completes while the model is "thinking".
      const written = await service.remember(pausedScope, {
        entries: [{ text: 'Caroline joined a second support group' }],
      });
      const revised = await service.revise(pausedScope, {
        entryId: (await service.list(pausedScope, {})).entries[0]!.entryId,
        text: 'revised while paused',
      });
      expect(revised.memory.revision).toBe(written.memory.revision + 1);
      resume();
      const result = await searching;
      const revision = result.memory!.revision;
      expect(revision).toBe(written.memory.revision - 1);
      for (const hit of [...result.hits, ...result.trace!.candidates]) {
        expect(hit.citation.revision).toBe(revision);
        expect(hit.text).not.toBe('Caroline joined a second support group');
        const resolved = await service.resolveCitation(pausedScope, hit.citation);
        expect(resolved.status === 'valid' && resolved.entry.text).toBe(hit.text);
      }
    });

    it('rejects bad search input with the field and the rule', async () => {
      await expect(service.search(scopeId, { query: '   ' })).rejects.toMatchObject({
        code: 'invalid_request',
        issues: [{ field: 'query', rule: 'query must contain a non-space character' }],
      });
      await expect(service.search(scopeId, { query: 'x', limit: 51 })).rejects.toMatchObject({
        issues: [{ field: 'limit', rule: 'limit must be at most 50' }],
      });
      await expect(service.search(scopeId, { query: 'x'.repeat(8193) })).rejects.toMatchObject({
        issues: [{ field: 'query' }],
      });
      await expect(service.search(scopeId, { query: 'x', mode: 'semantic' as never })).rejects.toMatchObject({
        issues: [{ field: 'mode', rule: 'mode must be one of auto, fts, vector, hybrid' }],
      });
    });

    it('an empty scope returns no hits and no memory', async () => {
      const result = await service.search(`empty-${randomUUID()}`, { query: 'anything' });
      expect(result).toMatchObject({ memory: undefined, hits: [] });
    });
  });
}
