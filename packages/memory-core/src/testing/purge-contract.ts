import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { lexicalProjectionPolicy } from '../domain/lexical-projection.js';
import type { Embedder } from '../ports/embedder.port.js';
import { noopLogger } from '../ports/logger.port.js';
import type { MemoryStore } from '../ports/memory-store.port.js';
import type { Bm25Parameters } from '../ports/retrieval-policy.port.js';
import { MemoryService } from '../service/memory-service.js';
import { createFakeEmbedder } from './fake-embedder.js';
import { minimalRrfPolicy } from './minimal-rrf-policy.js';

const BM25: Bm25Parameters = { k1: 1.2, b: 0.75, delta: 0.5 };
/** A word no other entry holds, chosen to survive every analyzer (no stop word, one token). */
const SECRET = 'zymurgyquokka';
const RULE = '[RFC 0002 "Purge"]';

/**
 * Purge (RFC 0002, "Purge"), part of the MemoryStore contract: every version of the entry erased from
 * every read at every revision (text, metadata, sources, vectors, lexical postings, its words in its
 * neighbours' projections), the revisions kept, a tombstone in their place, and the search
 * statistics at the head equal to those of a scope that never held the entry.
 */
export function describePurgeContract(getStore: () => MemoryStore) {
  describe('purge', () => {
    const embedder: Embedder = createFakeEmbedder();
    const serviceWith = (contextWeights: number[] = []) =>
      new MemoryService({
        store: getStore(),
        embedder,
        retrievalPolicy: { ...minimalRrfPolicy, lexicalProjection: lexicalProjectionPolicy(contextWeights) },
        logger: noopLogger,
      });

    /** Revision 1: another entry; 2: the secret alone; 3: revised; 4: another entry; 5: the purge. */
    async function purgedScope() {
      const service = serviceWith();
      const scopeId = `purge-${randomUUID()}`;
      await service.remember(scopeId, { entries: [{ text: 'the ferry leaves at noon' }] });
      const written = await service.remember(scopeId, {
        entries: [
          {
            text: `the ${SECRET} code is 7741`,
            kind: 'fact',
            sources: [{ sourceId: `${SECRET}-chat`, locator: SECRET }],
            metadata: { note: SECRET },
          },
        ],
      });
      const { entryId, entryVersionId: first } = written.entries[0]!;
      const revised = await service.revise(scopeId, { entryId, text: `the ${SECRET} code is now 9000` });
      await service.remember(scopeId, { entries: [{ text: 'bring the blue umbrella' }] });
      const purged = await service.purge(scopeId, { entryId, purgedBy: 'contract-key' });
      const second = revised.entry.entryVersionId;
      return { service, scopeId, entryId, first, second, purged, artifactId: written.memory.artifactId };
    }

    it(`writes one revision with a tombstone that holds ids and revisions, never the text ${RULE}`, async () => {
      const { scopeId, entryId, first, second, purged } = await purgedScope();
      expect(purged.status).toBe('purged');
      expect(purged.memory).toMatchObject({ scopeId, revision: 5 });
      expect(await getStore().head(scopeId)).toEqual(purged.memory);
      expect(purged.tombstone).toMatchObject({
        entryId,
        version: 3,
        previousVersionId: second,
        revision: 5,
        purgedBy: 'contract-key',
        versions: [
          {
            entryVersionId: first,
            version: 1,
            revision: 2,
            operation: 'remember',
            supersededRevision: 3,
            state: 'active',
          },
          {
            entryVersionId: second,
            version: 2,
            revision: 3,
            operation: 'revise',
            supersededRevision: 5,
            state: 'active',
          },
        ],
      });
      expect(Number.isNaN(Date.parse(purged.tombstone.purgedAt))).toBe(false);
      expect(JSON.stringify(purged)).not.toContain(SECRET);
      expect(await getStore().purgedEntry(scopeId, entryId)).toEqual(purged.tombstone);
      // The revisions stay, the one that held only the purged entry included.
      for (let revision = 1; revision <= 5; revision += 1) {
        expect(await getStore().revisionExists(scopeId, revision)).toBe(true);
      }
    });

    it(`leaves nothing of the entry to any store read at any revision ${RULE}`, async () => {
      const store = getStore();
      const { scopeId, entryId, first, second } = await purgedScope();
      const [vector] = await embedder.embed([`the ${SECRET} code is 7741`]);
      for (let revision = 1; revision <= 5; revision += 1) {
        const lexical = await store.lexicalSearch({
          scopeId,
          revision,
          query: SECRET,
          limit: 10,
          bm25: BM25,
        });
        expect(lexical.candidates, `lexical search at revision ${revision}`).toEqual([]);
        const vectors = await store.vectorSearch({
          scopeId,
          revision,
          profileId: embedder.profile.id,
          vector: vector!,
          limit: 50,
        });
        expect(vectors.map((hit) => hit.entryId)).not.toContain(entryId);
        expect(await store.entryAt(scopeId, entryId, revision)).toBeUndefined();
        const listed = await store.listEntries({ scopeId, revision, state: 'all', limit: 100 });
        expect(listed.map((entry) => entry.entryId)).not.toContain(entryId);
        expect((await store.vectorIndexState(scopeId, revision, embedder.profile.id)).complete).toBe(true);
      }
      for (const id of [first, second]) expect(await store.entryVersion(scopeId, id)).toBeUndefined();
      expect((await store.entryVersions(scopeId, [first, second])).size).toBe(0);
      const changes = await store.listChanges({ scopeId, fromRevision: 0, toRevision: 5, limit: 100 });
      expect(changes.map((change) => change.revision)).toEqual([1, 4]);
      expect(JSON.stringify(changes)).not.toContain(SECRET);
      expect(await store.versionsMissingEmbedding(scopeId, embedder.profile.id, 100)).toEqual([]);
    });

    it(`answers entry_purged for get from the entry's first revision on, and for every write but purge ${RULE}`, async () => {
      const { service, scopeId, entryId, purged } = await purgedScope();
      const gone = { code: 'entry_purged', entryId, purge: { revision: 5, purgedBy: 'contract-key' } };
      await expect(service.get(scopeId, { entryId })).rejects.toMatchObject(gone);
      for (const revision of [2, 3, 4, 5]) {
        await expect(service.get(scopeId, { entryId, revision })).rejects.toMatchObject(gone);
      }
      // Before its first revision the entry did not exist: not found, as before the purge.
      await expect(service.get(scopeId, { entryId, revision: 1 })).rejects.toMatchObject({
        code: 'not_found',
      });
      await expect(service.revise(scopeId, { entryId, text: 'again' })).rejects.toMatchObject(gone);
      await expect(service.forget(scopeId, { entryId })).rejects.toMatchObject(gone);
      await expect(service.reactivate(scopeId, { entryId })).rejects.toMatchObject(gone);
      const again = await service.purge(scopeId, { entryId });
      expect(again).toEqual({ memory: purged.memory, tombstone: purged.tombstone, status: 'unchanged' });
      await expect(service.purge(scopeId, { entryId: randomUUID() })).rejects.toMatchObject({
        code: 'not_found',
      });
      await expect(service.purge(`never-${scopeId}`, { entryId })).rejects.toMatchObject({
        code: 'not_found',
      });
      await expect(service.purge(scopeId, { entryId, purgedBy: '' })).rejects.toMatchObject({
        code: 'invalid_request',
        issues: [{ field: 'purgedBy' }],
      });
      expect((await getStore().head(scopeId))?.revision).toBe(5);
    });

    it(`erases the stored answers of keyed writes that name the entry; keeps others, and its own ${RULE}`, async () => {
      const service = serviceWith();
      const store = getStore();
      const scopeId = `purge-keys-${randomUUID()}`;
      const written = await service.remember(
        scopeId,
        { entries: [{ text: `the ${SECRET} pin is 1234` }, { text: 'the tram stops at nine' }] },
        { idempotencyKey: 'both' },
      );
      const [secret, other] = written.entries.map((entry) => entry.entryId) as [string, string];
      const revised = await service.revise(
        scopeId,
        { entryId: secret, text: `the ${SECRET} pin is 4321` },
        { idempotencyKey: 'revise-secret' },
      );
      expect(revised.entry.text).toContain(SECRET);
      await service.forget(scopeId, { entryId: other }, { idempotencyKey: 'forget-other' });
      const now = new Date();
      expect(await store.idempotencyRecord(scopeId, 'revise-secret', now)).toBeDefined();
      const purged = await service.purge(scopeId, { entryId: secret }, { idempotencyKey: 'purge-secret' });
      expect(purged.status).toBe('purged');
      // The remember named both entries, the revise holds the text: both records go.
      expect(await store.idempotencyRecord(scopeId, 'both', now)).toBeUndefined();
      expect(await store.idempotencyRecord(scopeId, 'revise-secret', now)).toBeUndefined();
      const kept = await store.idempotencyRecord(scopeId, 'forget-other', now);
      expect(kept?.operation).toBe('forget');
      const own = await store.idempotencyRecord(scopeId, 'purge-secret', now);
      expect(own?.operation).toBe('purge');
      expect(own?.result).not.toContain(SECRET);
      expect(await service.purge(scopeId, { entryId: secret }, { idempotencyKey: 'purge-secret' })).toEqual({
        ...purged,
        replayed: true,
      });
      // The revise's key is free again: its retry is a new request, and the entry is gone.
      await expect(
        service.revise(
          scopeId,
          { entryId: secret, text: `the ${SECRET} pin is 4321` },
          { idempotencyKey: 'revise-secret' },
        ),
      ).rejects.toMatchObject({ code: 'entry_purged' });
    });

    it(`lists a purged entry at older revisions as a marker, in its place among the pages ${RULE}`, async () => {
      const { service, scopeId, entryId, first, second } = await purgedScope();
      const purge = { revision: 5, purgedBy: 'contract-key' };
      const atTwo = await service.list(scopeId, { revision: 2 });
      expect(atTwo.entries.map((entry) => entry.text)).toEqual(['the ferry leaves at noon']);
      expect(atTwo.purged).toMatchObject([
        { entryId, entryVersionId: first, version: 1, revision: 2, state: 'active', purged: true, purge },
      ]);
      expect((await service.list(scopeId, { revision: 4, state: 'inactive' })).purged).toBeUndefined();
      expect((await service.list(scopeId, { revision: 4, state: 'all' })).purged).toMatchObject([
        { entryVersionId: second },
      ]);
      expect((await service.list(scopeId, {})).purged).toBeUndefined();
      // One item a page: the marker takes its place in entry id order, once.
      const seen: string[] = [];
      let page = await service.list(scopeId, { revision: 4, limit: 1 });
      for (;;) {
        seen.push(
          ...page.entries.map((entry) => entry.entryId),
          ...(page.purged ?? []).map((m) => m.entryId),
        );
        if (!page.nextCursor) break;
        page = await service.list(scopeId, { cursor: page.nextCursor, limit: 1 });
      }
      expect(seen).toHaveLength(3);
      expect([...seen].sort()).toEqual(seen);
      expect(seen).toContain(entryId);
      expect(JSON.stringify(atTwo)).not.toContain(SECRET);
    });

    it(`lists the purged entry's changes with purged: true and no text, and the purge itself ${RULE}`, async () => {
      const { service, scopeId, entryId, first, second, purged } = await purgedScope();
      const all = await service.changes(scopeId, {});
      expect(
        all.changes.map((change) => [change.revision, change.operation, change.purged === true]),
      ).toEqual([
        [1, 'remember', false],
        [2, 'remember', true],
        [3, 'revise', true],
        [4, 'remember', false],
        [5, 'purge', true],
      ]);
      const purge = { revision: 5, purgedBy: 'contract-key' };
      expect(all.changes[1]).toMatchObject({ entryId, entryVersionId: first, version: 1, purge });
      expect(all.changes[2]).toMatchObject({ entryId, entryVersionId: second, version: 2, purge });
      expect(all.changes[4]).toMatchObject({
        entryId,
        entryVersionId: purged.tombstone.entryVersionId,
        version: 3,
        purge,
      });
      expect(JSON.stringify(all)).not.toContain(SECRET);
      const paged: unknown[] = [];
      let page = await service.changes(scopeId, { limit: 1 });
      for (;;) {
        paged.push(...page.changes);
        if (!page.nextCursor) break;
        page = await service.changes(scopeId, { cursor: page.nextCursor });
      }
      expect(paged).toEqual(all.changes);
      expect((await service.changes(scopeId, { fromRevision: 4 })).changes).toMatchObject([
        { revision: 5, operation: 'purge', purged: true },
      ]);
    });

    it(`resolves a citation to any purged version as purged; invalid citations stay invalid ${RULE}`, async () => {
      const { service, scopeId, entryId, first, second, artifactId } = await purgedScope();
      const cite = (revision: number, entryVersionId: string) => ({
        artifactId,
        revision,
        entryId,
        entryVersionId,
      });
      for (const [revision, version] of [
        [2, first],
        [3, second],
        [4, second],
      ] as const) {
        expect(await service.resolveCitation(scopeId, cite(revision, version))).toEqual({
          status: 'purged',
          memory: { artifactId, scopeId, revision },
          entryId,
          entryVersionId: version,
          purge: expect.objectContaining({ revision: 5, purgedBy: 'contract-key' }) as unknown,
        });
      }
      await expect(service.resolveCitation(scopeId, cite(2, second))).rejects.toMatchObject({
        code: 'invalid_citation',
      });
      await expect(service.resolveCitation(scopeId, cite(1, first))).rejects.toMatchObject({
        code: 'invalid_citation',
      });
      await expect(service.resolveCitation(scopeId, cite(5, second))).rejects.toMatchObject({
        code: 'invalid_citation',
      });
    });

    it(`leaves BM25 statistics at the head equal to a scope that never held the entry ${RULE}`, async () => {
      const store = getStore();
      const service = serviceWith([0.5, 0.25]);
      const words = ['zinnia', 'quokka', SECRET, 'mammoth', 'walrus'];
      const purgedScopeId = `purge-${randomUUID()}`;
      const written = await service.remember(purgedScopeId, {
        entries: words.map((text, order) => ({ text, position: { sourceId: 'day', order } })),
      });
      const ids = written.entries.map((entry) => entry.entryId);
      // A forgotten entry can be purged too.
      await service.forget(purgedScopeId, { entryId: ids[4]! });
      await service.purge(purgedScopeId, { entryId: ids[4]! });
      await service.purge(purgedScopeId, { entryId: ids[2]! });
      const neverScopeId = `purge-never-${randomUUID()}`;
      await service.remember(neverScopeId, {
        entries: [0, 1, 3].map((order) => ({ text: words[order]!, position: { sourceId: 'day', order } })),
      });
      const scoresAt = async (scopeId: string, query: string, revision?: number) => {
        const at = revision ?? (await store.head(scopeId))!.revision;
        const { candidates } = await store.lexicalSearch({
          scopeId,
          revision: at,
          query,
          limit: 10,
          bm25: BM25,
        });
        const versions = await store.entryVersions(
          scopeId,
          candidates.map((c) => c.entryVersionId),
        );
        return new Map(candidates.map((c) => [versions.get(c.entryVersionId)?.text, c.score]));
      };
      for (const word of words) {
        const purged = await scoresAt(purgedScopeId, word);
        const never = await scoresAt(neverScopeId, word);
        expect([...purged.keys()].sort(), word).toEqual([...never.keys()].sort());
        for (const [text, score] of purged)
          expect(score, `${word}: ${text}`).toBeCloseTo(never.get(text)!, 9);
      }
      // The purged words are gone at every revision, also from the neighbours that held them as context.
      for (let revision = 1; revision <= 4; revision += 1) {
        expect((await scoresAt(purgedScopeId, `${SECRET} walrus`, revision)).size).toBe(0);
      }
      const head = await store.head(purgedScopeId);
      expect(await store.vectorIndexState(purgedScopeId, head!.revision, embedder.profile.id)).toEqual({
        profileId: embedder.profile.id,
        missing: 0,
        complete: true,
      });
      if (store.searchHead) {
        expect((await store.searchHead(purgedScopeId, embedder.profile.id))?.vectorIndex.complete).toBe(true);
      }
    });
  });
}
