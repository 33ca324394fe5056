import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AuthorityWeightsInput } from '../domain/authority.js';
import type { MemoryHit, SearchMode } from '../domain/search.js';
import type { MemoryStore } from '../ports/memory-store.port.js';
import type { RetrievalPolicy } from '../ports/retrieval-policy.port.js';
import { MemoryService } from '../service/memory-service.js';
import { createFakeEmbedder } from './fake-embedder.js';

export interface AuthorityContractOptions {
  createStore: () => Promise<MemoryStore>;
  /** The policy under test with these authority weights; `{}` = every weight 0 (the default policy). */
  policy: (authority: AuthorityWeightsInput) => RetrievalPolicy;
}

const ENTRIES = 24;
const MODES: readonly SearchMode[] = ['fts', 'hybrid'];

/** The hits as the contract compares them: identity, order and score, to the bit. */
function ranking(hits: readonly MemoryHit[]) {
  return hits.map((hit) => ({ entryVersionId: hit.citation.entryVersionId, score: hit.score }));
}

function byScoreThenIdentity(a: MemoryHit, b: MemoryHit): number {
  const ids = (hit: MemoryHit) => [hit.citation.entryId, hit.citation.entryVersionId] as const;
  const [aEntry, aVersion] = ids(a);
  const [bEntry, bVersion] = ids(b);
  return (
    b.score - a.score ||
    (aEntry < bEntry ? -1 : aEntry > bEntry ? 1 : 0) ||
    (aVersion < bVersion ? -1 : aVersion > bVersion ? 1 : 0)
  );
}

/**
 * RFC 0014, "Authority after fusion", over a real store: with every weight 0 a search answers exactly
 * what the default policy answers (same hits, order and scores, same policy id); a pinned boost and tag
 * weights multiply each hit's fused score by 1 + boost and re-rank the whole fused pool, so an entry
 * that fused below the page rises into it. The scope is small enough that every channel returns every
 * match at any limit, so the unboosted search at limit 50 is the whole fused pool.
 */
export function describeAuthorityContract(name: string, options: AuthorityContractOptions) {
  describe(`authority contract: ${name}`, () => {
    let store: MemoryStore;
    const embedder = createFakeEmbedder();
    const scopeId = `authority-${randomUUID()}`;
    const service = (authority: AuthorityWeightsInput) =>
      new MemoryService({ store, embedder, retrievalPolicy: options.policy(authority) });
    let pinnedEntryId = '';
    let billingEntryId = '';
    let urgentEntryId = '';

    beforeAll(async () => {
      store = await options.createStore();
      await store.prepareEmbeddingProfile(embedder.profile);
      // Entry i says "ledger" i+1 times among fillers, so the lexical rank follows i; the last three
      // (ranked lowest) are pinned, tagged billing, and tagged urgent and billing.
      const entries = Array.from({ length: ENTRIES }, (_, i) => ({
        text: `${'ledger '.repeat(ENTRIES - i)}invoice note number ${i} about ${'filler '.repeat(i)}words`,
        ...(i === ENTRIES - 3 ? { pinned: true } : {}),
        ...(i === ENTRIES - 2 ? { tags: ['Billing'] } : {}),
        ...(i === ENTRIES - 1 ? { tags: ['billing', 'urgent'] } : {}),
      }));
      const written = await service({}).remember(scopeId, { entries });
      pinnedEntryId = written.entries[ENTRIES - 3]!.entryId;
      billingEntryId = written.entries[ENTRIES - 2]!.entryId;
      urgentEntryId = written.entries[ENTRIES - 1]!.entryId;
    });

    it('with every weight 0 keeps the default policy id and its hits, order and scores exactly', async () => {
      const zero = options.policy({ pinnedBoost: 0, tagWeights: { billing: 0, urgent: 0 } });
      expect(zero.id).toBe(options.policy({}).id);
      expect(zero.authority).toBeUndefined();
      for (const mode of MODES) {
        for (const limit of [3, 10, 50]) {
          const request = { query: 'ledger invoice note', limit, mode };
          const today = await service({}).search(scopeId, request);
          const zeroed = await new MemoryService({ store, embedder, retrievalPolicy: zero }).search(
            scopeId,
            request,
          );
          expect(today.hits.length).toBe(Math.min(limit, ENTRIES));
          expect(ranking(zeroed.hits)).toEqual(ranking(today.hits));
          expect(zeroed.hits.every((hit) => hit.authority === undefined)).toBe(true);
        }
      }
    });

    it('a pinned boost multiplies a pinned entry’s fused score by 1 + boost and lifts it into the page', async () => {
      for (const mode of MODES) {
        const query = { query: 'ledger invoice note', mode };
        const pool = (await service({}).search(scopeId, { ...query, limit: 50 })).hits;
        const fused = pool.find((hit) => hit.citation.entryId === pinnedEntryId)!;
        expect(pool.indexOf(fused)).toBeGreaterThanOrEqual(3); // below a page of 3 without the boost

        const boosted = await service({ pinnedBoost: 1.5 }).search(scopeId, { ...query, limit: 3 });
        const pinned = boosted.hits.find((hit) => hit.citation.entryId === pinnedEntryId);
        expect(pinned?.score).toBe(fused.score * (1 + 1.5));
        expect(pinned?.authority).toEqual({
          fusedScore: fused.score,
          boost: 1.5,
          pinnedBoost: 1.5,
          tag: null,
          tagWeight: 0,
        });
        // The page is the whole pool re-ranked by the formula, ties by identity.
        const expected = pool
          .map((hit) => ({ ...hit, score: hit.score * (hit.entry.pinned ? 2.5 : 1) }))
          .sort(byScoreThenIdentity)
          .slice(0, 3);
        expect(ranking(boosted.hits)).toEqual(ranking(expected));
        expect(boosted.hits.filter((hit) => hit.authority?.boost === 0).length).toBe(2);
      }
    });

    it('tag weights count the largest weight among an entry’s tags, case-insensitively, plus the pinned boost', async () => {
      const weights = { pinnedBoost: 0.25, tagWeights: { BILLING: 0.5, urgent: 2 } };
      const policy = options.policy(weights);
      expect(policy.id).not.toBe(options.policy({}).id);
      const pool = (await service({}).search(scopeId, { query: 'ledger invoice note', limit: 50 })).hits;
      const hits = (await service(weights).search(scopeId, { query: 'ledger invoice note', limit: 50 })).hits;
      const boostOf = (entryId: string) => hits.find((hit) => hit.citation.entryId === entryId)!.authority;
      expect(boostOf(urgentEntryId)).toMatchObject({ boost: 2, tag: 'urgent', tagWeight: 2 });
      expect(boostOf(billingEntryId)).toMatchObject({ boost: 0.5, tag: 'billing', tagWeight: 0.5 });
      expect(boostOf(pinnedEntryId)).toMatchObject({ boost: 0.25, pinnedBoost: 0.25, tag: null });
      const factor = (hit: MemoryHit) =>
        1 +
        (hit.entry.tags.includes('urgent') ? 2 : hit.entry.tags.includes('billing') ? 0.5 : 0) +
        (hit.entry.pinned ? 0.25 : 0);
      const expected = pool
        .map((hit) => ({ ...hit, score: hit.score * factor(hit) }))
        .sort(byScoreThenIdentity);
      expect(ranking(hits)).toEqual(ranking(expected));
      expect(hits[0]!.citation.entryId).toBe(urgentEntryId);
    });
  });
}
