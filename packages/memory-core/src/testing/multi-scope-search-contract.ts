import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryHit, SearchResult } from '../domain/search.js';
import type { MemoryStore } from '../ports/memory-store.port.js';
import type { RetrievalPolicy } from '../ports/retrieval-policy.port.js';
import { RerankStage } from '../rerank/rerank-stage.js';
import { MemoryService } from '../service/memory-service.js';
import { createFakeEmbedder } from './fake-embedder.js';
import { createScriptedReranker } from './scripted-reranker.js';

export interface MultiScopeSearchContractOptions {
  createStore: () => Promise<MemoryStore>;
  retrievalPolicy: RetrievalPolicy;
}

const USER = [
  'The user prefers tea over coffee in the morning.',
  'The user is allergic to peanuts and carries an epipen.',
  'The user runs a marathon every spring.',
  'The user likes tea with honey after a long run.',
];
const PROJECT = [
  'The project deploys with a blue green rollout on Fridays.',
  'The project team drinks tea at the Monday planning meeting.',
  'The project database is PostgreSQL with pgvector.',
];

const identity = (hit: MemoryHit) => `${hit.citation.scopeId}/${hit.citation.entryVersionId}`;

/** The RRF interleaving of single-scope results, computed independently of the service's fusion. */
function interleave(lists: readonly SearchResult[], limit: number): string[] {
  const ranked = lists.flatMap((result, list) =>
    result.hits.map((hit, index) => ({ id: identity(hit), rank: index + 1, own: hit.score, list })),
  );
  ranked.sort((a, b) => a.rank - b.rank || b.own - a.own || a.list - b.list);
  return ranked.slice(0, limit).map((item) => item.id);
}

/** Issue 29, "Several scopes": one search over several scopes, on a real store. */
export function describeMultiScopeSearchContract(name: string, options: MultiScopeSearchContractOptions) {
  describe(`multi-scope search contract: ${name}`, () => {
    let store: MemoryStore;
    const embedder = createFakeEmbedder();
    let service: MemoryService;
    const user = `user-${randomUUID()}`;
    const project = `project-${randomUUID()}`;

    beforeAll(async () => {
      store = await options.createStore();
      await store.prepareEmbeddingProfile(embedder.profile);
      service = new MemoryService({ store, embedder, retrievalPolicy: options.retrievalPolicy });
      await service.remember(user, { entries: USER.map((text) => ({ text })) });
      // Two writes, so the two scopes are at different revisions.
      await service.remember(project, { entries: PROJECT.slice(0, 2).map((text) => ({ text })) });
      await service.remember(project, { entries: PROJECT.slice(2).map((text) => ({ text })) });
    });
    afterAll(async () => {
      await store?.close();
    });

    it('fuses the scopes by RRF, each hit naming its scope, each scope read at its own head', async () => {
      const request = { query: 'tea run', limit: 5, mode: 'fts' as const };
      const result = await service.searchScopes([user, project], request);
      const alone = await Promise.all([service.search(user, request), service.search(project, request)]);

      expect(result.memory).toBeUndefined();
      expect(result.multiScope).toEqual({ scopeCount: 2, rerank: 'none' });
      expect(result.scopes).toEqual([
        { scopeId: user, memory: alone[0].memory },
        { scopeId: project, memory: alone[1].memory },
      ]);
      expect(result.scopes.map((scope) => scope.memory?.revision)).toEqual([1, 2]);
      expect(new Set(result.hits.map((hit) => hit.citation.scopeId))).toEqual(new Set([user, project]));
      expect(result.hits.map(identity)).toEqual(interleave(alone, 5));
      for (let index = 1; index < result.hits.length; index += 1) {
        expect(result.hits[index]!.score).toBeLessThanOrEqual(result.hits[index - 1]!.score);
      }
      for (const hit of result.hits) {
        const read = result.scopes.find((scope) => scope.scopeId === hit.citation.scopeId)!.memory!;
        expect(hit.citation).toMatchObject({ artifactId: read.artifactId, revision: read.revision });
        expect(hit.score).toBeCloseTo(1 / (60 + hit.scopeRank!), 12);
        const resolved = await service.resolveCitation(hit.citation.scopeId, hit.citation);
        expect(resolved.status === 'valid' && resolved.entry.text).toBe(hit.text);
        const other = hit.citation.scopeId === user ? project : user;
        await expect(service.resolveCitation(other, hit.citation)).rejects.toMatchObject({
          code: 'invalid_citation',
        });
      }
    });

    it('runs hybrid over every scope when each vector index is complete', async () => {
      const result = await service.searchScopes([project, user], { query: 'tea', limit: 4 });
      expect(result.mode).toBe('hybrid');
      expect(result.hits.length).toBeGreaterThanOrEqual(2);
      // Each scope's best hit comes first: rank 1 of one scope, then rank 1 of the other.
      expect(new Set(result.hits.slice(0, 2).map((hit) => hit.citation.scopeId))).toEqual(
        new Set([user, project]),
      );
      expect(result.hits.some((hit) => hit.matchedBy.includes('vector'))).toBe(true);
    });

    it('lists a scope never written with no memory and searches the others', async () => {
      const empty = `empty-${randomUUID()}`;
      const result = await service.searchScopes([empty, user], { query: 'peanuts', limit: 3 });
      expect(result.scopes[0]).toEqual({ scopeId: empty, memory: undefined });
      expect(result.scopes[1]!.memory?.scopeId).toBe(user);
      expect(result.hits[0]!.text).toContain('peanuts');
      const none = await service.searchScopes([empty, `empty-${randomUUID()}`], { query: 'peanuts' });
      expect(none).toMatchObject({ memory: undefined, hits: [], multiScope: { scopeCount: 2 } });
    });

    it('explains each hit’s lexical match from its own scope', async () => {
      const result = await service.searchScopes(
        [user, project],
        { query: 'tea', mode: 'fts' },
        { explain: true },
      );
      expect(result.lexicalQueryTerms).toEqual(['tea']);
      expect(result.hits.length).toBe(3);
      for (const hit of result.hits) expect(hit.lexicalMatch?.ownTerms).toEqual(['tea']);
    });

    it('skips the reranker by default and runs it under rerank, on the fused pool', async () => {
      const reranker = createScriptedReranker({
        decide: (_query, candidates) => candidates.map((_, i) => i + 1).reverse(),
      });
      const stage = new RerankStage({ reranker, candidateLimit: 10 });
      const skipping = new MemoryService({
        store,
        embedder,
        retrievalPolicy: options.retrievalPolicy,
        rerankStage: stage,
      });
      const request = { query: 'tea morning run project', limit: 3, mode: 'fts' as const };
      const skipped = await skipping.searchScopes([user, project], request);
      expect(skipped.trace).toBeUndefined();
      expect(skipped.multiScope).toEqual({ scopeCount: 2, rerank: 'skipped' });
      expect(reranker.calls).toHaveLength(0);
      // One scope is not a multi-scope search: the reranker runs as configured.
      expect((await skipping.searchScopes([user], request)).trace).toBeDefined();
      expect(reranker.calls).toHaveLength(1);

      const reranking = new MemoryService({
        store,
        embedder,
        retrievalPolicy: options.retrievalPolicy,
        rerankStage: stage,
        multiScopeRerank: 'rerank',
      });
      const reranked = await reranking.searchScopes([user, project], request);
      expect(reranked.multiScope).toEqual({ scopeCount: 2, rerank: 'reranked' });
      const pool = reranked.trace!.candidates;
      const wide = await skipping.searchScopes([user, project], { ...request, limit: 10 });
      expect(pool.map(identity)).toEqual(wide.hits.map(identity));
      expect(new Set(pool.map((hit) => hit.citation.scopeId)).size).toBe(2);
      // The rerank selects among the pool's hits: every returned hit is one of them, unaltered.
      for (const hit of reranked.hits) {
        expect(pool.find((candidate) => identity(candidate) === identity(hit))?.citation).toEqual(
          hit.citation,
        );
      }
    });

    it('applies a filter inside every scope’s channels, and each hit carries its entry’s fields', async () => {
      const scopes = [`steer-a-${randomUUID()}`, `steer-b-${randomUUID()}`];
      for (const [index, scopeId] of scopes.entries()) {
        await service.remember(scopeId, {
          entries: [
            // Untagged notes that say "lantern" often: unfiltered, they rank above the decision.
            ...Array.from({ length: 12 }, (_, note) => ({
              text: `Lantern lantern lantern: note ${note} of scope ${index}.`,
            })),
            {
              text: `The lantern decision of scope ${index}, among other words about the harbour, the tide and the pier.`,
              kind: 'decision',
              tags: ['Harbour'],
              pinned: true,
              occurredAt: '2026-06-03T10:00:00Z',
              sources: [{ sourceId: `minutes-${index}` }],
              metadata: { scope: index },
            },
          ],
        });
      }
      const request = { query: 'lantern', limit: 2 };
      const unfiltered = await service.searchScopes(scopes, { ...request, mode: 'fts' });
      expect(unfiltered.hits).toHaveLength(2);
      expect(unfiltered.hits.some((hit) => hit.entry.kind === 'decision')).toBe(false);

      const filter = { kinds: ['decision'], tagsAny: ['harbour'] };
      for (const mode of ['fts', 'hybrid'] as const) {
        const result = await service.searchScopes(scopes, { ...request, mode, filter });
        expect(result.mode).toBe(mode);
        expect(result.hits.map((hit) => hit.citation.scopeId).sort()).toEqual([...scopes].sort());
        for (const hit of result.hits) {
          const index = scopes.indexOf(hit.citation.scopeId);
          expect(hit.entry).toMatchObject({
            kind: 'decision',
            tags: ['harbour'],
            pinned: true,
            occurredAt: '2026-06-03T10:00:00.000Z',
            sources: [{ sourceId: `minutes-${index}` }],
            metadata: { scope: index },
            revision: 1,
          });
        }
      }
    });

    it('rejects scope lists that break the rules, naming scopeIds', async () => {
      for (const [scopeIds, rule] of [
        [[], 'scopeIds must name at least 1 scope'],
        [Array.from({ length: 17 }, (_, i) => `s${i}`), 'scopeIds must name at most 16 scopes'],
        [[user, user], 'scopeIds must not name a scope twice'],
      ] as const) {
        await expect(service.searchScopes(scopeIds, { query: 'tea' })).rejects.toMatchObject({
          code: 'invalid_request',
          issues: [{ field: 'scopeIds', rule }],
        });
      }
    });
  });
}
