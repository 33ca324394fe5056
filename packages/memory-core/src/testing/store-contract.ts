import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentHash } from '../domain/content-hash.js';
import { PLAIN_LEXICAL_PROJECTION } from '../domain/lexical-projection.js';
import type { Embedder } from '../ports/embedder.port.js';
import { noopLogger } from '../ports/logger.port.js';
import type { MemoryStore, NewEntryVersion } from '../ports/memory-store.port.js';
import { MemoryService } from '../service/memory-service.js';
import { describeEntityIndexContract } from './entity-contract.js';
import { createFakeEmbedder } from './fake-embedder.js';
import { describeIdempotencyContract } from './idempotency-contract.js';
import { describeListTextContract } from './list-text-contract.js';
import { noSearchPolicy } from './no-search-policy.js';
import { describeLexicalProjectionContract } from './projection-contract.js';
import { describePurgeContract } from './purge-contract.js';
import { describeScopeLifecycleContract } from './scope-lifecycle-contract.js';

export interface StoreContractOptions {
  /** Creates one store for the whole suite; every test works in scopes of its own. */
  createStore: () => Promise<MemoryStore>;
  /**
   * Entries of the export round trip (RFC 0015); default 10,000. The in-memory store, whose reads scan
   * every version, runs a smaller one.
   */
  exportRoundTripEntries?: number;
}

const ODD_TEXTS = [
  'O\'Brien said "hi"; DROP TABLE entries; -- & | ! :* ( )',
  'Emoji 🧠🚀 and a family 👩‍👩‍👧 with skin tone 👍🏽',
  'עברית מימין לשמאל and العربية',
  '中文記憶 日本語のテキスト 한국어',
  '  leading and trailing spaces  \n\ttabs and\nnewlines  ',
  'back\\slash and percent % and underscore _',
];

const bm25 = { k1: 1.2, b: 0.75, delta: 0 };

/** The MemoryStore contract: every adapter must pass it unchanged. */
export function describeMemoryStoreContract(name: string, options: StoreContractOptions) {
  describe(`MemoryStore contract: ${name}`, () => {
    let store: MemoryStore;
    let embedder: Embedder;
    let service: MemoryService;
    const scope = () => `contract-${randomUUID()}`;

    beforeAll(async () => {
      store = await options.createStore();
      embedder = createFakeEmbedder();
      await store.prepareEmbeddingProfile(embedder.profile);
      service = new MemoryService({ store, embedder, retrievalPolicy: noSearchPolicy });
    });
    afterAll(async () => {
      await store?.close();
    });

    describeLexicalProjectionContract(() => store);
    describeIdempotencyContract(() => store);
    describePurgeContract(() => store);
    describeEntityIndexContract(() => store);
    describeScopeLifecycleContract(() => store, options.exportRoundTripEntries);
    describeListTextContract(() => store);

    it('starts a scope at revision 1 and keeps one artifact id across revisions', async () => {
      const scopeId = scope();
      expect(await store.head(scopeId)).toBeUndefined();
      const first = await service.remember(scopeId, { entries: [{ text: 'first note' }] });
      const second = await service.remember(scopeId, { entries: [{ text: 'second note' }] });
      expect(first.memory.revision).toBe(1);
      expect(second.memory).toEqual({ artifactId: first.memory.artifactId, scopeId, revision: 2 });
      expect(await store.head(scopeId)).toEqual(second.memory);
      expect(await store.revisionExists(scopeId, 2)).toBe(true);
      expect(await store.revisionExists(scopeId, 3)).toBe(false);
    });

    it('round-trips odd but valid text, sources and metadata exactly', async () => {
      const scopeId = scope();
      const written = await service.remember(scopeId, {
        entries: ODD_TEXTS.map((text, index) => ({
          text,
          kind: 'fact',
          sources: [{ sourceId: `conv-${index}`, locator: `D1:${index}` }],
          metadata: { at: '2023-05-08', nested: { list: [1, 'two', null, true] }, emoji: '🧠' },
        })),
      });
      for (const [index, { entryId, status }] of written.entries.entries()) {
        expect(status).toBe('created');
        const { entry } = await service.get(scopeId, { entryId });
        expect(entry.text).toBe(ODD_TEXTS[index]);
        expect(entry.kind).toBe('fact');
        expect(entry.sources).toEqual([{ sourceId: `conv-${index}`, locator: `D1:${index}` }]);
        expect(entry.metadata).toEqual({
          at: '2023-05-08',
          nested: { list: [1, 'two', null, true] },
          emoji: '🧠',
        });
        expect(entry.contentHash).toBe(contentHash('fact', ODD_TEXTS[index]!));
        expect(entry.version).toBe(1);
        expect(entry.previousVersionId).toBeNull();
        expect(entry.revision).toBe(1);
      }
    });

    it('does not store an exact active duplicate twice, within or across batches', async () => {
      const scopeId = scope();
      const first = await service.remember(scopeId, {
        entries: [{ text: 'same' }, { text: 'same' }, { text: 'other' }],
      });
      expect(first.entries.map((e) => e.status)).toEqual(['created', 'duplicate', 'created']);
      expect(first.entries[1]!.entryId).toBe(first.entries[0]!.entryId);
      const again = await service.remember(scopeId, { entries: [{ text: 'same' }, { text: 'other' }] });
      expect(again.entries.every((e) => e.status === 'duplicate')).toBe(true);
      expect(again.memory.revision).toBe(1);
      const page = await service.list(scopeId, {});
      expect(page.entries).toHaveLength(2);
      const sameKindDifferent = await service.remember(scopeId, {
        entries: [{ text: 'same', kind: 'fact' }],
      });
      expect(sameKindDifferent.entries[0]!.status).toBe('created');
    });

    it('revises into a new immutable version and keeps the superseded one citable', async () => {
      const scopeId = scope();
      const written = await service.remember(scopeId, { entries: [{ text: 'Alice lives in Paris' }] });
      const { entryId, entryVersionId } = written.entries[0]!;
      const revised = await service.revise(scopeId, { entryId, text: 'Alice lives in Berlin' });
      expect(revised.status).toBe('created');
      expect(revised.entry).toMatchObject({
        entryId,
        version: 2,
        previousVersionId: entryVersionId,
        revision: 2,
      });
      expect((await service.get(scopeId, { entryId })).entry.text).toBe('Alice lives in Berlin');
      expect((await service.get(scopeId, { entryId, revision: 1 })).entry.text).toBe('Alice lives in Paris');
      const old = await service.resolveCitation(scopeId, {
        artifactId: written.memory.artifactId,
        revision: 1,
        entryId,
        entryVersionId,
      });
      expect(old).toMatchObject({ status: 'valid', entry: { text: 'Alice lives in Paris' } });
      expect(old.status === 'valid' && old.currentAtHead).toBe(false);
      expect(await store.entryVersion(scopeId, entryVersionId)).toMatchObject({
        text: 'Alice lives in Paris',
      });
      const unchanged = await service.revise(scopeId, { entryId, text: 'Alice lives in Berlin' });
      expect(unchanged.status).toBe('unchanged');
      expect(unchanged.memory.revision).toBe(2);
    });

    it('reads entry versions by id in one call: every state, exact content, nothing of another scope', async () => {
      const scopeId = scope();
      const written = await service.remember(scopeId, {
        entries: [
          { text: 'kept as written', metadata: { topic: 'a' }, sources: [{ sourceId: 'chat-1' }] },
          { text: 'to be forgotten' },
        ],
      });
      const [kept, gone] = written.entries;
      const forgotten = await service.forget(scopeId, { entryId: gone!.entryId });
      const other = await service.remember(scope(), { entries: [{ text: 'another scope' }] });
      const ids = [
        kept!.entryVersionId,
        gone!.entryVersionId,
        forgotten.entry.entryVersionId,
        other.entries[0]!.entryVersionId,
        randomUUID(),
      ];
      const found = await store.entryVersions(scopeId, ids);
      expect([...found.keys()].sort()).toEqual(ids.slice(0, 3).sort());
      for (const id of ids.slice(0, 3)) expect(found.get(id)).toEqual(await store.entryVersion(scopeId, id));
      expect(found.get(kept!.entryVersionId)).toMatchObject({
        text: 'kept as written',
        metadata: { topic: 'a' },
        sources: [{ sourceId: 'chat-1' }],
        state: 'active',
      });
      expect(found.get(forgotten.entry.entryVersionId)?.state).toBe('inactive');
      expect((await store.entryVersions(scopeId, [])).size).toBe(0);
    });

    it('refuses citations that do not name a current version at the cited revision', async () => {
      const scopeId = scope();
      const written = await service.remember(scopeId, { entries: [{ text: 'cited fact' }] });
      const { entryId, entryVersionId } = written.entries[0]!;
      const citation = { artifactId: written.memory.artifactId, revision: 1, entryId, entryVersionId };
      await expect(service.resolveCitation(scopeId, citation)).resolves.toMatchObject({
        currentAtHead: true,
      });
      const revised = await service.revise(scopeId, { entryId, text: 'cited fact, corrected' });
      const cases: [object, RegExp][] = [
        [{ ...citation, artifactId: randomUUID() }, /artifactId is not the memory of this scope/],
        [{ ...citation, revision: 3 }, /revision 3 does not exist yet/],
        [{ ...citation, revision: 2 }, /was not current at revision 2/],
        [{ ...citation, entryId: randomUUID() }, /did not exist at revision 1/],
        [{ ...citation, entryVersionId: revised.entry.entryVersionId }, /was not current at revision 1/],
      ];
      for (const [bad, reason] of cases) {
        await expect(service.resolveCitation(scopeId, bad as typeof citation)).rejects.toMatchObject({
          code: 'invalid_citation',
          message: expect.stringMatching(reason) as unknown as string,
        });
      }
      await expect(service.resolveCitation(scopeId, { ...citation, revision: 0 })).rejects.toMatchObject({
        code: 'invalid_request',
        issues: [{ field: 'revision' }],
      });
      await expect(service.resolveCitation(`other-${scopeId}`, citation)).rejects.toMatchObject({
        code: 'invalid_citation',
      });
    });

    it('forgets and reactivates through new versions', async () => {
      const scopeId = scope();
      const written = await service.remember(scopeId, {
        entries: [{ text: 'temporary espresso fact' }, { text: 'kept' }],
      });
      const entryId = written.entries[0]!.entryId;
      const forgotten = await service.forget(scopeId, { entryId });
      expect(forgotten.entry).toMatchObject({ state: 'inactive', version: 2 });
      expect((await service.list(scopeId, {})).entries.map((e) => e.text)).toEqual(['kept']);
      expect((await service.list(scopeId, { state: 'inactive' })).entries.map((e) => e.entryId)).toEqual([
        entryId,
      ]);
      const lexical = await store.lexicalSearch({
        scopeId,
        revision: forgotten.memory.revision,
        query: 'espresso',
        limit: 10,
        bm25,
      });
      expect(lexical.candidates).toHaveLength(0);
      expect((await service.forget(scopeId, { entryId })).status).toBe('unchanged');
      const back = await service.reactivate(scopeId, { entryId });
      expect(back.entry).toMatchObject({ state: 'active', version: 3, text: 'temporary espresso fact' });
      const found = await store.lexicalSearch({
        scopeId,
        revision: back.memory.revision,
        query: 'espresso',
        limit: 10,
        bm25,
      });
      expect(found.candidates.map((c) => c.entryVersionId)).toEqual([back.entry.entryVersionId]);
      expect(
        (await store.vectorIndexState(scopeId, back.memory.revision, embedder.profile.id)).complete,
      ).toBe(true);
    });

    it('paginates entries on the revision of the first page, even when writes land in between', async () => {
      const scopeId = scope();
      await service.remember(scopeId, {
        entries: Array.from({ length: 7 }, (_, i) => ({ text: `page entry ${i}` })),
      });
      const first = await service.list(scopeId, { limit: 3 });
      await service.remember(scopeId, { entries: [{ text: 'arrived later' }] });
      const second = await service.list(scopeId, { limit: 3, cursor: first.nextCursor! });
      const third = await service.list(scopeId, { limit: 3, cursor: second.nextCursor! });
      const seen = [...first.entries, ...second.entries, ...third.entries];
      expect(third.nextCursor).toBeUndefined();
      expect(seen).toHaveLength(7);
      expect(new Set(seen.map((e) => e.entryId)).size).toBe(7);
      expect(seen.some((e) => e.text === 'arrived later')).toBe(false);
      expect(third.memory?.revision).toBe(1);
    });

    it('lists the changes between two revisions with their operations', async () => {
      const scopeId = scope();
      const written = await service.remember(scopeId, { entries: [{ text: 'one' }, { text: 'two' }] });
      const entryId = written.entries[0]!.entryId;
      await service.revise(scopeId, { entryId, text: 'one, revised' });
      await service.forget(scopeId, { entryId });
      const all = await service.changes(scopeId, {});
      expect(all.toRevision).toBe(3);
      expect(all.changes.map((c) => [c.revision, c.operation])).toEqual([
        [1, 'remember'],
        [1, 'remember'],
        [2, 'revise'],
        [3, 'forget'],
      ]);
      const since = await service.changes(scopeId, { fromRevision: 1, limit: 1 });
      expect(since.changes.map((c) => c.operation)).toEqual(['revise']);
      const rest = await service.changes(scopeId, { cursor: since.nextCursor! });
      expect(rest.changes.map((c) => c.operation)).toEqual(['forget']);
      expect(rest.nextCursor).toBeUndefined();
    });

    it('refuses a stale compare-and-swap and writes nothing', async () => {
      const scopeId = scope();
      await service.remember(scopeId, { entries: [{ text: 'base' }] });
      await expect(
        store.write(scopeId, 0, async (tx) =>
          tx.appendRevision('remember', [newVersion('stale write')], PLAIN_LEXICAL_PROJECTION),
        ),
      ).rejects.toMatchObject({ code: 'revision_conflict', retryable: true });
      expect((await store.head(scopeId))?.revision).toBe(1);
      expect((await service.list(scopeId, {})).entries.map((e) => e.text)).toEqual(['base']);
    });

    it('rolls back the whole write when the work fails after appending', async () => {
      const scopeId = scope();
      await service.remember(scopeId, { entries: [{ text: 'base' }] });
      await expect(
        store.write(scopeId, 1, async (tx) => {
          await tx.appendRevision('remember', [newVersion('half written')], PLAIN_LEXICAL_PROJECTION);
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      expect((await store.head(scopeId))?.revision).toBe(1);
      expect(await store.revisionExists(scopeId, 2)).toBe(false);
      expect((await service.list(scopeId, { state: 'all' })).entries).toHaveLength(1);
    });

    it('loses no update when writers race, in one process and across processes', async () => {
      const scopeId = scope();
      // Two services with separate in-process locks stand in for two processes; only the CAS arbitrates.
      let retries = 0;
      const logger = {
        ...noopLogger,
        info: (event: string) => {
          if (event === 'memory.write.conflict_retry') retries += 1;
        },
      };
      const [one, two] = [0, 1].map(
        () =>
          new MemoryService({
            store,
            embedder,
            retrievalPolicy: noSearchPolicy,
            maxWriteAttempts: 50,
            logger,
          }),
      );
      const writers = Array.from({ length: 16 }, (_, i) =>
        (i % 2 === 0 ? one! : two!).remember(scopeId, { entries: [{ text: `racer ${i}` }] }),
      );
      const results = await Promise.all(writers);
      expect(new Set(results.map((r) => r.memory.revision))).toEqual(
        new Set(Array.from({ length: 16 }, (_, i) => i + 1)),
      );
      const page = await service.list(scopeId, { limit: 100 });
      expect(page.entries.map((e) => e.text).sort()).toEqual(
        Array.from({ length: 16 }, (_, i) => `racer ${i}`).sort(),
      );
      // The two services really raced: at least one compare-and-swap was lost and retried.
      expect(retries).toBeGreaterThan(0);
    });

    it('retries a lost compare-and-swap a bounded number of times, then surfaces a typed error', async () => {
      const scopeId = scope();
      await service.remember(scopeId, { entries: [{ text: 'base' }] });
      let staleReads = 0;
      // Another process wrote between our head read and our write: the head we read is one behind.
      const racedStore = new Proxy(store, {
        get(target, property) {
          if (property !== 'head') {
            const value = Reflect.get(target, property);
            return typeof value === 'function' ? value.bind(target) : value;
          }
          return async (id: string) => {
            const head = await target.head(id);
            if (head && staleReads > 0) {
              staleReads -= 1;
              return { ...head, revision: head.revision - 1 };
            }
            return head;
          };
        },
      });
      const once = new MemoryService({
        store: racedStore,
        embedder,
        retrievalPolicy: noSearchPolicy,
        maxWriteAttempts: 1,
      });
      staleReads = 1;
      await expect(once.remember(scopeId, { entries: [{ text: 'lost race' }] })).rejects.toMatchObject({
        code: 'revision_conflict',
        retryable: true,
      });
      expect((await store.head(scopeId))?.revision).toBe(1);
      const thrice = new MemoryService({
        store: racedStore,
        embedder,
        retrievalPolicy: noSearchPolicy,
        maxWriteAttempts: 3,
      });
      staleReads = 2;
      const won = await thrice.remember(scopeId, { entries: [{ text: 'won on the third attempt' }] });
      expect(won.memory.revision).toBe(2);
      expect(staleReads).toBe(0);
    });

    it('ranks lexical matches with BM25 inside the scope and at the requested revision', async () => {
      const scopeId = scope();
      const otherScope = scope();
      await service.remember(otherScope, { entries: [{ text: 'marathon marathon marathon' }] });
      const written = await service.remember(scopeId, {
        entries: [
          { text: 'Caroline ran a marathon in Boston' },
          { text: 'Caroline likes painting' },
          { text: 'Melanie went camping with Caroline' },
        ],
      });
      const later = await service.remember(scopeId, { entries: [{ text: 'another marathon story' }] });
      const atOne = await store.lexicalSearch({
        scopeId,
        revision: 1,
        query: 'Caroline marathon',
        limit: 10,
        bm25,
      });
      expect(atOne.queryTermCount).toBe(2);
      expect(atOne.candidates[0]?.entryId).toBe(written.entries[0]!.entryId);
      expect(atOne.candidates[0]?.matchedTerms).toBe(2);
      expect(atOne.candidates.map((c) => c.rank)).toEqual(atOne.candidates.map((_, i) => i + 1));
      expect(atOne.candidates).toHaveLength(3);
      const scores = atOne.candidates.map((c) => c.score);
      expect([...scores].sort((a, b) => b - a)).toEqual(scores);
      const atTwo = await store.lexicalSearch({
        scopeId,
        revision: later.memory.revision,
        query: 'marathon',
        limit: 10,
        bm25,
      });
      expect(atTwo.candidates).toHaveLength(2);
      const none = await store.lexicalSearch({ scopeId, revision: 2, query: 'the of and', limit: 10, bm25 });
      expect(none).toEqual({ queryTermCount: 0, candidates: [] });
    });

    it('folds accents in the lexical analysis: an accented word and its plain spelling find each other', async () => {
      const scopeId = scope();
      const written = await service.remember(scopeId, {
        entries: [
          { text: 'Café au lait with Zoë' },
          { text: 'the cafe by the station' },
          { text: 'a naïve question about São Paulo' },
          { text: 'naive zoe visited sao tome' },
          { text: 'Straße und Łódź' },
          // Decomposed: "e" and a combining acute accent.
          { text: 'Cafe\u0301 Noir' },
        ],
      });
      const [accented, plain, naiveAccented, naivePlain, eastern, decomposed] = written.entries.map(
        (e) => e.entryId,
      );
      const found = async (query: string) => {
        const { candidates } = await store.lexicalSearch({ scopeId, revision: 1, query, limit: 10, bm25 });
        return candidates.map((c) => c.entryId).sort();
      };
      const both = (...ids: (string | undefined)[]) => ids.map((id) => id!).sort();
      expect(await found('cafe')).toEqual(both(accented, plain, decomposed));
      expect(await found('café')).toEqual(both(accented, plain, decomposed));
      expect(await found('CAFÉ')).toEqual(both(accented, plain, decomposed));
      expect(await found('zoe')).toEqual(both(accented, naivePlain));
      expect(await found('Zoë')).toEqual(both(accented, naivePlain));
      expect(await found('naive')).toEqual(both(naiveAccented, naivePlain));
      expect(await found('naïve')).toEqual(both(naiveAccented, naivePlain));
      expect(await found('sao')).toEqual(both(naiveAccented, naivePlain));
      expect(await found('São')).toEqual(both(naiveAccented, naivePlain));
      expect(await found('strasse lodz')).toEqual(both(eastern));
      // One query term, whichever spelling: the accented and plain forms are one lexeme.
      const { queryTermCount } = await store.lexicalSearch({
        scopeId,
        revision: 1,
        query: 'café cafe',
        limit: 10,
        bm25,
      });
      expect(queryTermCount).toBe(1);
      // The stored and returned text keeps its accents.
      expect((await service.get(scopeId, { entryId: accented! })).entry.text).toBe('Café au lait with Zoë');
    });

    it('orders vector matches by cosine similarity within one profile and tracks index completeness', async () => {
      const scopeId = scope();
      const written = await service.remember(scopeId, {
        entries: [{ text: 'apple banana cherry' }, { text: 'apple banana' }, { text: 'zebra' }],
      });
      const [query] = await embedder.embed(['apple banana cherry']);
      const hits = await store.vectorSearch({
        scopeId,
        revision: 1,
        profileId: embedder.profile.id,
        vector: query!,
        limit: 10,
      });
      expect(hits.map((h) => h.entryId)).toEqual(written.entries.map((e) => e.entryId));
      expect(hits[0]!.score).toBeCloseTo(1, 5);
      expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
      expect(
        await store.vectorSearch({
          scopeId,
          revision: 1,
          profileId: 'another.profile',
          vector: query!,
          limit: 10,
        }),
      ).toEqual([]);
      expect(await store.vectorIndexState(scopeId, 1, 'another.profile')).toEqual({
        profileId: 'another.profile',
        missing: 3,
        complete: false,
      });
      await store.prepareEmbeddingProfile({
        id: 'another.profile',
        dimension: 3,
        normalization: 'l2',
        minCosine: 0,
      });
      const missing = await store.versionsMissingEmbedding(scopeId, 'another.profile', 2);
      expect(missing).toHaveLength(2);
      await store.putEmbeddings(
        scopeId,
        'another.profile',
        missing.map((v) => ({ entryVersionId: v.entryVersionId, vector: [1, 0, 0] })),
      );
      expect((await store.vectorIndexState(scopeId, 1, 'another.profile')).missing).toBe(1);
    });

    it('reads the head with its vector index state as head and vectorIndexState do, after every kind of write', async () => {
      const scopeId = scope();
      const profileId = embedder.profile.id;
      const expectSearchHead = async () => {
        const head = await store.head(scopeId);
        const state = await store.vectorIndexState(scopeId, head!.revision, profileId);
        if (store.searchHead) {
          expect(await store.searchHead(scopeId, profileId)).toEqual({ memory: head, vectorIndex: state });
          expect((await store.searchHead(scopeId, 'another.profile'))?.vectorIndex.complete).toBe(false);
        }
        return state;
      };
      if (store.searchHead) expect(await store.searchHead(scopeId, profileId)).toBeUndefined();
      const written = await service.remember(scopeId, {
        entries: [{ text: 'the ferry leaves at noon' }, { text: 'bring the blue umbrella' }],
      });
      expect(await expectSearchHead()).toEqual({ profileId, missing: 0, complete: true });
      const [first, second] = written.entries.map((e) => e.entryId);
      await service.revise(scopeId, { entryId: first!, text: 'the ferry leaves at one' });
      await service.forget(scopeId, { entryId: second! });
      expect(await expectSearchHead()).toEqual({ profileId, missing: 0, complete: true });
      await service.reactivate(scopeId, { entryId: second! });
      expect(await expectSearchHead()).toEqual({ profileId, missing: 0, complete: true });
    });

    it('keeps BM25 statistics exact at the head and at older revisions through revise and forget', async () => {
      const scopeId = scope();
      const written = await service.remember(scopeId, {
        entries: [
          { text: 'harbour ferry schedule' },
          { text: 'ferry tickets for the harbour tour' },
          { text: 'a long walk along the harbour wall at dusk' },
        ],
      });
      const query = { scopeId, query: 'harbour ferry', limit: 10, bm25: { k1: 1.2, b: 0.75, delta: 0.5 } };
      const before = await store.lexicalSearch({ ...query, revision: written.memory.revision });
      await service.revise(scopeId, { entryId: written.entries[1]!.entryId, text: 'ferry harbour harbour' });
      const forgotten = await service.forget(scopeId, { entryId: written.entries[2]!.entryId });
      // The older revision answers as it did, whatever the head's statistics are now.
      expect(await store.lexicalSearch({ ...query, revision: written.memory.revision })).toEqual(before);
      const now = await store.lexicalSearch({ ...query, revision: forgotten.memory.revision });
      const texts = await store.entryVersions(
        scopeId,
        now.candidates.map((c) => c.entryVersionId),
      );
      expect(now.candidates.map((c) => texts.get(c.entryVersionId)?.text)).toEqual([
        'ferry harbour harbour',
        'harbour ferry schedule',
      ]);
      // N = 2 and avgdl = 3 at the head: the scores follow from the two remaining entries alone.
      const idf = Math.log(1 + (2 - 2 + 0.5) / (2 + 0.5));
      const part = (tf: number) => (tf * 2.2) / (tf + 1.2 * (1 - 0.75 + 0.75 * (3 / 3))) + 0.5;
      expect(now.candidates[0]!.score).toBeCloseTo(idf * part(2) + idf * part(1), 9);
      expect(now.candidates[1]!.score).toBeCloseTo(idf * part(1) + idf * part(1), 9);
    });

    it('keeps a revise with equal metadata in another key order a no-op', async () => {
      const scopeId = scope();
      const written = await service.remember(scopeId, {
        entries: [{ text: 'ordered', metadata: { topic: 'x', at: 1 } }],
      });
      const again = await service.revise(scopeId, {
        entryId: written.entries[0]!.entryId,
        text: 'ordered',
        metadata: { at: 1, topic: 'x' },
      });
      expect(again).toMatchObject({ status: 'unchanged', memory: { revision: 1 } });
    });

    it('does not let entries with empty (zero) vectors crowd real matches out of vector search', async () => {
      const scopeId = scope();
      const written = await service.remember(scopeId, {
        entries: [
          { text: 'apple orchard harvest' },
          ...Array.from({ length: 40 }, (_, i) => ({ text: `${'!'.repeat(i + 1)}` })),
        ],
      });
      const [query] = await embedder.embed(['apple harvest']);
      const hits = await store.vectorSearch({
        scopeId,
        revision: written.memory.revision,
        profileId: embedder.profile.id,
        vector: query!,
        limit: 10,
      });
      expect(hits[0]?.entryId).toBe(written.entries[0]!.entryId);
      expect(hits.every((hit) => Number.isFinite(hit.score))).toBe(true);
    });

    it('rejects bad input with a typed error naming the field, and writes nothing', async () => {
      const scopeId = scope();
      await expect(
        service.remember(scopeId, { entries: [{ text: 'ok' }, { text: 'nul\u0000byte' }] }),
      ).rejects.toMatchObject({
        code: 'invalid_request',
        issues: [{ field: 'entries.1.text', rule: 'text must not contain NUL (U+0000)' }],
      });
      await expect(service.remember(scopeId, { entries: [] })).rejects.toMatchObject({
        code: 'invalid_request',
      });
      await expect(service.remember(scopeId, { entries: [{ text: '\ud800 lone' }] })).rejects.toMatchObject({
        issues: [{ field: 'entries.0.text' }],
      });
      await expect(
        service.remember(scopeId, {
          entries: [{ text: 'ok', metadata: { note: '\ud800', '\udc00key': 1 } }],
        }),
      ).rejects.toMatchObject({
        issues: [
          { field: 'entries.0.metadata', rule: 'metadata must be well-formed Unicode (no lone surrogates)' },
        ],
      });
      expect(await store.head(scopeId)).toBeUndefined();
    });
  });
}

function newVersion(text: string): NewEntryVersion {
  return {
    entryId: randomUUID(),
    entryVersionId: randomUUID(),
    version: 1,
    previousVersionId: null,
    kind: 'note',
    text,
    contentHash: contentHash('note', text),
    sources: [],
    position: null,
    metadata: {},
    tags: [],
    pinned: false,
    occurredAt: null,
    state: 'active',
  };
}
