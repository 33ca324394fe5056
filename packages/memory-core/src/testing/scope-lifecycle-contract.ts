import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { lexicalProjectionPolicy } from '../domain/lexical-projection.js';
import type { RememberEntryInput } from '../domain/memory-entry.js';
import { NotFoundError } from '../errors/not-found-error.js';
import { ScopePurgedError } from '../errors/scope-purged-error.js';
import type { Embedder } from '../ports/embedder.port.js';
import { noopLogger } from '../ports/logger.port.js';
import type { MemoryStore } from '../ports/memory-store.port.js';
import type { Bm25Parameters } from '../ports/retrieval-policy.port.js';
import { MemoryService } from '../service/memory-service.js';
import { exportedEntry, type MemoryExport } from '../service/scope-lifecycle.js';
import { createFakeEmbedder } from './fake-embedder.js';
import { minimalRrfPolicy } from './minimal-rrf-policy.js';

const BM25: Bm25Parameters = { k1: 1.2, b: 0.75, delta: 0.5 };
/** A word no other entry holds, chosen to survive every analyzer. */
const SECRET = 'quixoticzebu';
const RULE = '[RFC 0015]';
/** How many entries the export round trip carries (the figure). */
export const EXPORT_CONTRACT_ENTRIES = 10_000;

async function exported(handle: MemoryExport): Promise<RememberEntryInput[]> {
  const lines: RememberEntryInput[] = [];
  for await (const page of handle.pages()) lines.push(...page.map(exportedEntry));
  return lines;
}

/** Entry `i` of the round trip: every field the import format carries, varied. */
function roundTripEntry(i: number): RememberEntryInput {
  return {
    text: `note ${i}: the ${['ferry', 'invoice', 'garden', 'büro'][i % 4]} item ${i * 7919}`,
    kind: ['note', 'fact', 'preference'][i % 3]!,
    sources: i % 5 === 0 ? [] : [{ sourceId: `conv-${i % 97}`, ...(i % 2 ? { locator: `L${i}` } : {}) }],
    ...(i % 4 === 0 ? { position: { sourceId: `doc-${i % 13}`, order: [i, i % 3] } } : {}),
    metadata: i % 6 === 0 ? {} : { n: i, tags: [`t${i % 7}`], nested: { ok: i % 2 === 0, at: null } },
    // The entry fields of RFC 0014 (lower case tags, UTC times with milliseconds: as stored).
    ...(i % 3 === 1 ? { tags: ['billing', `t${i % 5}`] } : {}),
    ...(i % 7 === 0 ? { pinned: true } : {}),
    ...(i % 4 === 1
      ? { occurredAt: new Date(Date.UTC(2026, i % 12, 1 + (i % 28), 9, 30)).toISOString() }
      : {}),
  };
}

/**
 * Deleting a scope and exporting it (RFC 0015), part of the MemoryStore contract: a deleted scope's
 * reads and writes answer `scope_purged`, its store reads find nothing at any revision, and an export
 * imported into a new scope exports the same entries in the same order.
 */
export function describeScopeLifecycleContract(
  getStore: () => MemoryStore,
  roundTripEntries = EXPORT_CONTRACT_ENTRIES,
) {
  describe('scope lifecycle', () => {
    const embedder: Embedder = createFakeEmbedder();
    const service = () =>
      new MemoryService({
        store: getStore(),
        embedder,
        retrievalPolicy: { ...minimalRrfPolicy, lexicalProjection: lexicalProjectionPolicy([0.5]) },
        logger: noopLogger,
      });

    /** Revisions 1-4: remember, revise, forget, purge; another scope beside it holds the secret too. */
    async function deletedScope() {
      const memory = service();
      const scopeId = `delete-${randomUUID()}`;
      const neighbour = `keep-${randomUUID()}`;
      const first = await memory.remember(scopeId, {
        entries: [
          {
            text: `the ${SECRET} code is 7741`,
            position: { sourceId: 'chat', order: 1 },
            metadata: { k: 1 },
          },
          { text: 'the ferry leaves at noon', position: { sourceId: 'chat', order: 2 } },
          { text: 'bring the blue umbrella' },
        ],
      });
      const [secret, ferry, umbrella] = first.entries.map((entry) => entry.entryId);
      await memory.revise(scopeId, { entryId: secret!, text: `the ${SECRET} code is now 9000` });
      await memory.forget(scopeId, { entryId: umbrella! });
      await memory.purge(scopeId, { entryId: ferry! });
      await memory.remember(neighbour, { entries: [{ text: `another ${SECRET} lives here` }] });
      // Searched before the deletion, so a store that keeps indexes in memory may hold them.
      for (let i = 0; i < 4; i += 1) await memory.search(scopeId, { query: SECRET });
      await memory.deleteScope(scopeId, { deletedBy: 'contract-key' });
      return { memory, scopeId, neighbour, artifactId: first.memory.artifactId, secret: secret! };
    }

    it(`leaves a tombstone and answers scope_purged to every read and write ${RULE}`, async () => {
      const { memory, scopeId, artifactId, secret } = await deletedScope();
      const tombstone = await getStore().deletedScope(scopeId);
      expect(tombstone).toMatchObject({
        scopeId,
        artifactId,
        revision: 4,
        entries: 2,
        deletedBy: 'contract-key',
      });
      expect(Number.isNaN(Date.parse(tombstone!.deletedAt))).toBe(false);
      const refusals: [string, () => Promise<unknown>][] = [
        ['head', () => getStore().head(scopeId)],
        ['list', () => memory.list(scopeId)],
        ['list at revision 1', () => memory.list(scopeId, { revision: 1 })],
        ['get', () => memory.get(scopeId, { entryId: secret })],
        ['get at revision 1', () => memory.get(scopeId, { entryId: secret, revision: 1 })],
        ['changes', () => memory.changes(scopeId)],
        ['search', () => memory.search(scopeId, { query: SECRET })],
        ['export', () => memory.openExport(scopeId)],
        ['export at revision 2', () => memory.openExport(scopeId, { revision: 2 })],
        ['remember', () => memory.remember(scopeId, { entries: [{ text: 'again' }] })],
        ['revise', () => memory.revise(scopeId, { entryId: secret, text: 'again' })],
        ['purge', () => memory.purge(scopeId, { entryId: secret })],
        [
          'resolveCitation',
          () =>
            memory.resolveCitation(scopeId, {
              artifactId,
              revision: 1,
              entryId: secret,
              entryVersionId: secret,
            }),
        ],
      ];
      for (const [name, call] of refusals) {
        const error = await call().then(
          () => undefined,
          (caught: unknown) => caught,
        );
        expect(error, name).toBeInstanceOf(ScopePurgedError);
        expect((error as ScopePurgedError).tombstone).toEqual(tombstone);
      }
      expect(await getStore().listScopes()).not.toContain(scopeId);
    });

    it(`leaves nothing of the scope to any store read at any revision, and keeps other scopes ${RULE}`, async () => {
      const store = getStore();
      const { memory, scopeId, neighbour, secret } = await deletedScope();
      const [vector] = await embedder.embed([`the ${SECRET} code is 7741`]);
      for (let revision = 1; revision <= 4; revision += 1) {
        const lexical = await store.lexicalSearch({
          scopeId,
          revision,
          query: SECRET,
          limit: 10,
          bm25: BM25,
        });
        expect(lexical.candidates, `lexical at ${revision}`).toEqual([]);
        const vectors = await store.vectorSearch({
          scopeId,
          revision,
          profileId: embedder.profile.id,
          vector: vector!,
          limit: 10,
        });
        expect(vectors, `vectors at ${revision}`).toEqual([]);
        const entities = await store.entitySearch({ scopeId, revision, entities: [SECRET], limit: 10 });
        expect(entities.candidates, `entities at ${revision}`).toEqual([]);
        expect(await store.listEntries({ scopeId, revision, state: 'all', limit: 10 })).toEqual([]);
        expect(await store.listPurgedEntries({ scopeId, revision, state: 'all', limit: 10 })).toEqual([]);
        expect(await store.entryAt(scopeId, secret, revision)).toBeUndefined();
        expect(await store.revisionExists(scopeId, revision)).toBe(false);
        expect(await store.activeEntryCount(scopeId, revision)).toBe(0);
      }
      expect(await store.listChanges({ scopeId, fromRevision: 0, toRevision: 4, limit: 10 })).toEqual([]);
      expect(await store.listPurgedChanges({ scopeId, fromRevision: 0, toRevision: 4, limit: 10 })).toEqual(
        [],
      );
      expect(await store.purgedEntry(scopeId, secret)).toBeUndefined();
      expect(await store.versionsMissingEmbedding(scopeId, embedder.profile.id, 10)).toEqual([]);
      const kept = await memory.search(neighbour, { query: SECRET });
      expect(kept.hits.map((hit) => hit.text)).toEqual([`another ${SECRET} lives here`]);
    });

    it(`answers unchanged with the same tombstone when repeated, not_found for a scope never written ${RULE}`, async () => {
      const { memory, scopeId } = await deletedScope();
      const tombstone = await getStore().deletedScope(scopeId);
      const again = await memory.deleteScope(scopeId, { deletedBy: 'someone-else' });
      expect(again).toEqual({ status: 'unchanged', tombstone });
      await expect(memory.deleteScope(`never-${randomUUID()}`)).rejects.toBeInstanceOf(NotFoundError);
      const never = `never-${randomUUID()}`;
      await expect(memory.deleteScope(never)).rejects.toBeInstanceOf(NotFoundError);
      expect(await getStore().deletedScope(never)).toBeUndefined();
      expect(await getStore().head(never)).toBeUndefined();
    });

    it(`exports the active entries at a revision, by content hash, read at that revision ${RULE}`, async () => {
      const memory = service();
      const scopeId = `export-${randomUUID()}`;
      const written = await memory.remember(scopeId, {
        entries: [{ text: 'alpha one' }, { text: 'beta two', kind: 'fact' }, { text: 'gamma three' }],
      });
      const [alpha, beta] = written.entries.map((entry) => entry.entryId);
      await memory.revise(scopeId, { entryId: alpha!, text: 'alpha one, revised' });
      await memory.forget(scopeId, { entryId: beta! });
      const atHead = await memory.openExport(scopeId);
      expect(atHead.memory?.revision).toBe(3);
      expect(atHead.total).toBe(2);
      const head = await exported(atHead);
      expect(head.map((entry) => entry.text).sort()).toEqual(['alpha one, revised', 'gamma three']);
      const first = await exported(await memory.openExport(scopeId, { revision: 1 }));
      expect(first.map((entry) => entry.text).sort()).toEqual(['alpha one', 'beta two', 'gamma three']);
      await expect(memory.openExport(scopeId, { revision: 4 })).rejects.toBeInstanceOf(NotFoundError);
      const never = await memory.openExport(`never-${randomUUID()}`);
      expect(never).toMatchObject({ memory: undefined, total: 0 });
      expect(await exported(never)).toEqual([]);
    });

    it(`round-trips ${roundTripEntries} entries: export, import into a new scope, export the same lines ${RULE}`, async () => {
      const memory = service();
      const original = `export-${randomUUID()}`;
      const copy = `import-${randomUUID()}`;
      const entries = Array.from({ length: roundTripEntries }, (_, i) => roundTripEntry(i));
      await memory.import(
        original,
        entries.map((entry, i) => ({ line: i + 1, entry })),
        { batchSize: 1000 },
      );
      const first = await exported(await memory.openExport(original));
      expect(first).toHaveLength(roundTripEntries);
      const byText = new Map(entries.map((entry) => [entry.text, entry]));
      for (const line of first) {
        const source = byText.get(line.text)!;
        expect(line).toEqual({
          ...source,
          ...(source.position ? { position: { ...source.position } } : {}),
        });
      }
      const summary = await memory.import(
        copy,
        first.map((entry, i) => ({ line: i + 1, entry })),
        { batchSize: 1000 },
      );
      expect(summary.created).toBe(roundTripEntries);
      const second = await exported(await memory.openExport(copy));
      expect(JSON.stringify(second)).toBe(JSON.stringify(first));
    }, 240_000);
  });
}
