import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  type EntryPositionInput,
  type LexicalProjectionPolicy,
  lexicalProjectionPolicy,
  PLAIN_LEXICAL_PROJECTION,
} from '../domain/lexical-projection.js';
import { noopLogger } from '../ports/logger.port.js';
import type { MemoryStore } from '../ports/memory-store.port.js';
import type { Bm25Parameters } from '../ports/retrieval-policy.port.js';
import { MemoryService } from '../service/memory-service.js';
import { createFakeEmbedder } from './fake-embedder.js';
import { minimalRrfPolicy } from './minimal-rrf-policy.js';

/** Plain saturation, no length normalisation and no BM25+ bonus: scores are easy to compute by hand. */
const BM25: Bm25Parameters = { k1: 1.2, b: 0, delta: 0 };
const CONTEXT = lexicalProjectionPolicy([0.35, 0.175]);

/** One word per entry, chosen to survive every analyzer unchanged (no stemming, no stop word). */
const WORDS = ['zinnia', 'quokka', 'fjord', 'mammoth', 'walrus', 'kumquat', 'yurt'];

/** BM25 of a single matched term with frequency `tf` among `n` projections that all contain it. */
function singleTermScore(tf: number, n: number, df = n) {
  const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
  return (idf * (tf * (BM25.k1 + 1))) / (tf + BM25.k1);
}

/**
 * The contextual lexical index (RFC 0007), part of the MemoryStore contract: projections with
 * neighbour words, re-projection on every kind of write, ordering by the order key, revision pinning,
 * and rebuild after a policy change.
 */
export function describeLexicalProjectionContract(getStore: () => MemoryStore) {
  describe('lexical projection with neighbour context', () => {
    const serviceWith = (projection: LexicalProjectionPolicy) =>
      new MemoryService({
        store: getStore(),
        embedder: createFakeEmbedder(),
        retrievalPolicy: { ...minimalRrfPolicy, lexicalProjection: projection },
        logger: noopLogger,
      });

    async function rememberAt(
      service: MemoryService,
      scopeId: string,
      entries: { text: string; position?: EntryPositionInput }[],
    ) {
      const result = await service.remember(scopeId, { entries });
      return result.entries.map((entry) => entry.entryId);
    }

    /** Lexical scores by entry id for one word, at the head or a given revision. */
    async function scores(scopeId: string, word: string, revision?: number) {
      const store = getStore();
      const at = revision ?? (await store.head(scopeId))!.revision;
      const { candidates } = await store.lexicalSearch({
        scopeId,
        revision: at,
        query: word,
        limit: 50,
        bm25: BM25,
      });
      return new Map(candidates.map((c) => [c.entryId, c.score]));
    }

    it('indexes each entry with its neighbours’ words, weighted by distance', async () => {
      const service = serviceWith(CONTEXT);
      const scopeId = `projection-${randomUUID()}`;
      const ids = await rememberAt(
        service,
        scopeId,
        WORDS.slice(0, 5).map((word, i) => ({ text: word, position: { sourceId: 's', order: i + 1 } })),
      );
      const found = await scores(scopeId, WORDS[2]!);
      // Every entry holds the middle word: itself at weight 1, two at 0.35 and two at 0.175.
      expect(found.size).toBe(5);
      expect(found.get(ids[2]!)).toBeCloseTo(singleTermScore(1, 5), 10);
      expect(found.get(ids[1]!)).toBeCloseTo(singleTermScore(0.35, 5), 10);
      expect(found.get(ids[3]!)).toBeCloseTo(singleTermScore(0.35, 5), 10);
      expect(found.get(ids[0]!)).toBeCloseTo(singleTermScore(0.175, 5), 10);
      expect(found.get(ids[4]!)).toBeCloseTo(singleTermScore(0.175, 5), 10);
      // The first word reaches two entries ahead, no further.
      expect([...(await scores(scopeId, WORDS[0]!)).keys()].sort()).toEqual([ids[0], ids[1], ids[2]].sort());
      // The stored and returned text stays the entry's own.
      const hit = await service.search(scopeId, { query: WORDS[2]!, mode: 'fts', limit: 1 });
      expect(hit.hits[0]?.text).toBe(WORDS[2]);
      expect(hit.hits[0]?.entry.position).toEqual({ sourceId: 's', order: [3] });
    });

    it('orders a source by the order key, not by insertion time, and keeps sources apart', async () => {
      const service = serviceWith(lexicalProjectionPolicy([0.5]));
      const scopeId = `projection-${randomUUID()}`;
      const [ten] = await rememberAt(service, scopeId, [
        { text: WORDS[0]!, position: { sourceId: 's', order: [1, 10] } },
      ]);
      const [thirty] = await rememberAt(service, scopeId, [
        { text: WORDS[1]!, position: { sourceId: 's', order: [1, 30] } },
      ]);
      const [twenty] = await rememberAt(service, scopeId, [
        { text: WORDS[2]!, position: { sourceId: 's', order: [1, 20] } },
      ]);
      const [other] = await rememberAt(service, scopeId, [
        { text: WORDS[3]!, position: { sourceId: 'other', order: [1, 25] } },
      ]);
      // Order 10 < 20 < 30: "thirty"'s word reaches 20 only; the other source never mixes in.
      expect([...(await scores(scopeId, WORDS[1]!)).keys()].sort()).toEqual([thirty, twenty].sort());
      expect([...(await scores(scopeId, WORDS[0]!)).keys()].sort()).toEqual([ten, twenty].sort());
      expect([...(await scores(scopeId, WORDS[3]!)).keys()]).toEqual([other]);
    });

    it('re-projects neighbours when an entry is remembered between them, pinned per revision', async () => {
      const service = serviceWith(CONTEXT);
      const scopeId = `projection-${randomUUID()}`;
      const [first, third] = await rememberAt(service, scopeId, [
        { text: WORDS[0]!, position: { sourceId: 's', order: 1 } },
        { text: WORDS[2]!, position: { sourceId: 's', order: 3 } },
      ]);
      const before = (await getStore().head(scopeId))!.revision;
      const [second] = await rememberAt(service, scopeId, [
        { text: WORDS[1]!, position: { sourceId: 's', order: 2 } },
      ]);
      const now = await scores(scopeId, WORDS[2]!);
      expect(now.get(third!)).toBeCloseTo(singleTermScore(1, 3), 10);
      expect(now.get(second!)).toBeCloseTo(singleTermScore(0.35, 3), 10);
      expect(now.get(first!)).toBeCloseTo(singleTermScore(0.175, 3), 10);
      // A search pinned to the earlier revision sees the index as it was then.
      const then = await scores(scopeId, WORDS[2]!, before);
      expect(then.size).toBe(2);
      expect(then.get(first!)).toBeCloseTo(singleTermScore(0.35, 2), 10);
    });

    it('removes a forgotten entry’s words from its neighbours and restores them on reactivate', async () => {
      const service = serviceWith(CONTEXT);
      const scopeId = `projection-${randomUUID()}`;
      const [first, second, third] = await rememberAt(
        service,
        scopeId,
        WORDS.slice(0, 3).map((word, i) => ({ text: word, position: { sourceId: 's', order: i } })),
      );
      await service.forget(scopeId, { entryId: second! });
      expect((await scores(scopeId, WORDS[1]!)).size).toBe(0);
      // With the middle entry gone, the outer two are neighbours at distance 1.
      expect((await scores(scopeId, WORDS[2]!)).get(first!)).toBeCloseTo(singleTermScore(0.35, 2), 10);
      await service.reactivate(scopeId, { entryId: second! });
      expect([...(await scores(scopeId, WORDS[1]!)).keys()].sort()).toEqual([first, second, third].sort());
      expect((await scores(scopeId, WORDS[2]!)).get(first!)).toBeCloseTo(singleTermScore(0.175, 3), 10);
    });

    it('re-projects neighbours with the new words when an entry is revised', async () => {
      const service = serviceWith(CONTEXT);
      const scopeId = `projection-${randomUUID()}`;
      const [first, second] = await rememberAt(
        service,
        scopeId,
        WORDS.slice(0, 3).map((word, i) => ({ text: word, position: { sourceId: 's', order: i } })),
      );
      await service.revise(scopeId, { entryId: second!, text: WORDS[5]! });
      expect((await scores(scopeId, WORDS[1]!)).size).toBe(0);
      const revised = await scores(scopeId, WORDS[5]!);
      expect(revised.size).toBe(3);
      expect(revised.get(first!)).toBeCloseTo(singleTermScore(0.35, 3), 10);
      expect((await service.get(scopeId, { entryId: second! })).entry.position).toEqual({
        sourceId: 's',
        order: [1],
      });
    });

    it('indexes entries without a position with their own words only', async () => {
      const service = serviceWith(CONTEXT);
      const scopeId = `projection-${randomUUID()}`;
      const [loose] = await rememberAt(service, scopeId, [{ text: WORDS[0]! }, { text: WORDS[1]! }]);
      expect([...(await scores(scopeId, WORDS[0]!)).keys()]).toEqual([loose]);
    });

    it('reports projections of another policy as stale and rebuilds them without a new revision', async () => {
      const scopeId = `projection-${randomUUID()}`;
      const plain = serviceWith(PLAIN_LEXICAL_PROJECTION);
      const ids = await rememberAt(
        plain,
        scopeId,
        WORDS.slice(0, 4).map((word, i) => ({ text: word, position: { sourceId: 's', order: i } })),
      );
      expect([...(await scores(scopeId, WORDS[1]!)).keys()]).toEqual([ids[1]]);
      const head = (await getStore().head(scopeId))!.revision;
      const contextual = serviceWith(CONTEXT);
      expect(await contextual.lexicalIndexState(scopeId)).toEqual({
        policyId: CONTEXT.id,
        stale: 4,
        complete: false,
      });
      expect(await plain.lexicalIndexState(scopeId)).toEqual({
        policyId: PLAIN_LEXICAL_PROJECTION.id,
        stale: 0,
        complete: true,
      });

      expect(await contextual.rebuildLexicalIndex(scopeId)).toBe(4);
      expect((await getStore().head(scopeId))!.revision).toBe(head);
      expect(await contextual.lexicalIndexState(scopeId)).toMatchObject({ stale: 0, complete: true });
      const found = await scores(scopeId, WORDS[1]!);
      expect(found.get(ids[1]!)).toBeCloseTo(singleTermScore(1, 4), 10);
      expect(found.get(ids[2]!)).toBeCloseTo(singleTermScore(0.35, 4), 10);
      expect(found.get(ids[3]!)).toBeCloseTo(singleTermScore(0.175, 4), 10);
      // Nothing left to do the second time; and a write keeps the new policy.
      expect(await contextual.rebuildLexicalIndex(scopeId)).toBe(0);
      await rememberAt(contextual, scopeId, [{ text: WORDS[6]!, position: { sourceId: 's', order: 9 } }]);
      expect(await contextual.lexicalIndexState(scopeId)).toMatchObject({ stale: 0 });
      expect(await contextual.rebuildLexicalIndex(`projection-${randomUUID()}`)).toBe(0);
    });

    it('explains each match as the entry’s own words or neighbour context, at the revision searched', async () => {
      const service = serviceWith(CONTEXT);
      const scopeId = `projection-${randomUUID()}`;
      // zinnia, quokka, fjord, "mammoth fjord", walrus: the middle entry's word is also its neighbour's.
      const texts = [WORDS[0]!, WORDS[1]!, WORDS[2]!, `${WORDS[3]} ${WORDS[2]}`, WORDS[4]!];
      const written = await service.remember(scopeId, {
        entries: texts.map((text, i) => ({ text, position: { sourceId: 's', order: i } })),
      });
      const versions = written.entries.map((entry) => entry.entryVersionId);
      const before = written.memory.revision;
      const query = `${WORDS[1]} ${WORDS[2]!.toUpperCase()} ${WORDS[6]}`;
      const explain = async (revision: number, ids = versions) =>
        getStore().explainLexicalMatches({ scopeId, revision, query, entryVersionIds: ids });

      const atFirst = await explain(before);
      // Query order; the unmatched term is still a query term.
      expect(atFirst.queryTerms).toEqual([WORDS[1], WORDS[2], WORDS[6]]);
      expect(atFirst.matches.get(versions[0]!)).toEqual({ ownTerms: [], contextTerms: [WORDS[1], WORDS[2]] });
      expect(atFirst.matches.get(versions[1]!)).toEqual({ ownTerms: [WORDS[1]], contextTerms: [WORDS[2]] });
      // Its own word, though a neighbour has it too: own.
      expect(atFirst.matches.get(versions[2]!)).toEqual({ ownTerms: [WORDS[2]], contextTerms: [WORDS[1]] });
      expect(atFirst.matches.get(versions[3]!)).toEqual({ ownTerms: [WORDS[2]], contextTerms: [WORDS[1]] });
      expect(atFirst.matches.get(versions[4]!)).toEqual({ ownTerms: [], contextTerms: [WORDS[2]] });

      // Forgetting the second entry takes its word out of the first entry's context, from then on.
      await service.forget(scopeId, { entryId: written.entries[1]!.entryId });
      const head = (await getStore().head(scopeId))!.revision;
      const atHead = await explain(head);
      expect(atHead.matches.get(versions[0]!)).toEqual({ ownTerms: [], contextTerms: [WORDS[2]] });
      // The forgotten version has no projection at the head: it is left out.
      expect(atHead.matches.has(versions[1]!)).toBe(false);
      expect((await explain(before)).matches.get(versions[0]!)).toEqual(atFirst.matches.get(versions[0]!));
      // Only what was asked for.
      expect([...(await explain(head, [versions[4]!])).matches.keys()]).toEqual([versions[4]]);
    });

    it('adds the sources of the lexical match to the hits of a search run with explain, and only then', async () => {
      const service = serviceWith(CONTEXT);
      const scopeId = `projection-${randomUUID()}`;
      const written = await service.remember(scopeId, {
        entries: WORDS.slice(0, 3).map((text, i) => ({ text, position: { sourceId: 's', order: i } })),
      });
      const plain = await service.search(scopeId, { query: WORDS[0]!, mode: 'fts' });
      expect(plain.lexicalQueryTerms).toBeUndefined();
      expect(plain.hits.every((hit) => hit.lexicalMatch === undefined)).toBe(true);

      const explained = await service.search(scopeId, { query: WORDS[0]!, mode: 'fts' }, { explain: true });
      expect(explained.lexicalQueryTerms).toEqual([WORDS[0]]);
      expect(explained.hits.map((hit) => hit.citation.entryVersionId)).toEqual(
        plain.hits.map((hit) => hit.citation.entryVersionId),
      );
      const byEntry = new Map(explained.hits.map((hit) => [hit.citation.entryId, hit.lexicalMatch]));
      expect(byEntry.get(written.entries[0]!.entryId)).toEqual({ ownTerms: [WORDS[0]], contextTerms: [] });
      // A hit that holds none of the query's words: it came from neighbour context.
      expect(byEntry.get(written.entries[1]!.entryId)).toEqual({ ownTerms: [], contextTerms: [WORDS[0]] });
      expect(byEntry.get(written.entries[2]!.entryId)).toEqual({ ownTerms: [], contextTerms: [WORDS[0]] });

      // A vector search has no lexical channel, so nothing to explain about it.
      const vector = await service.search(scopeId, { query: WORDS[0]!, mode: 'vector' }, { explain: true });
      expect(vector.lexicalQueryTerms).toBeUndefined();
      expect(vector.hits.every((hit) => hit.lexicalMatch === undefined)).toBe(true);
    });

    it('refuses a malformed position with a typed error naming the field, writing nothing', async () => {
      const service = serviceWith(CONTEXT);
      const scopeId = `projection-${randomUUID()}`;
      const bad = [
        { position: { sourceId: '', order: 1 }, field: 'entries.0.position.sourceId' },
        { position: { sourceId: 's', order: [] }, field: 'entries.0.position.order' },
        { position: { sourceId: 's', order: Number.POSITIVE_INFINITY }, field: 'entries.0.position.order' },
        { position: { sourceId: 's', order: [1, 2, 3, 4, 5] }, field: 'entries.0.position.order' },
      ];
      for (const { position, field } of bad) {
        const error = await service
          .remember(scopeId, { entries: [{ text: 'x', position: position as EntryPositionInput }] })
          .catch((e: unknown) => e);
        expect(error).toMatchObject({ code: 'invalid_request' });
        expect((error as { issues: { field: string }[] }).issues.map((i) => i.field)).toContain(field);
      }
      expect(await getStore().head(scopeId)).toBeUndefined();
    });
  });
}
