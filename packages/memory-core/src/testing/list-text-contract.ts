import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { EntryVersion } from '../domain/memory-entry.js';
import { LIST_TEXT_MAX_CHARS } from '../domain/read-requests.js';
import { ValidationError } from '../errors/validation-error.js';
import { noopLogger } from '../ports/logger.port.js';
import type { MemoryStore } from '../ports/memory-store.port.js';
import type { EntryPage } from '../service/list-entries.js';
import { MemoryService } from '../service/memory-service.js';
import { createFakeEmbedder } from './fake-embedder.js';
import { noSearchPolicy } from './no-search-policy.js';

const RULE = '[RFC 0014 "List", text]';

/** Every page of a list, following its cursors; the total of each page beside. */
async function allPages(
  service: MemoryService,
  scopeId: string,
  request: Parameters<MemoryService['list']>[1] & object,
): Promise<{ texts: string[]; totals: number[]; pages: number }> {
  const texts: string[] = [];
  const totals: number[] = [];
  let pages = 0;
  let page: EntryPage | undefined;
  do {
    page = await service.list(scopeId, {
      ...request,
      ...(page?.nextCursor === undefined ? {} : { cursor: page.nextCursor }),
    });
    pages += 1;
    texts.push(...page.entries.map((entry: EntryVersion) => entry.text));
    totals.push(page.total ?? -1);
  } while (page.nextCursor !== undefined);
  return { texts, totals, pages };
}

/**
 * A list's `text` (RFC 0014, "List"), part of the MemoryStore contract: the entries whose text
 * contains it, case folded one character at a time on both sides, matched literally (no pattern
 * characters), counted by `total`, combined with state, filter, order and revision, and never an
 * entry of another scope or a purged one.
 */
export function describeListTextContract(getStore: () => MemoryStore) {
  describe('list text', () => {
    const service = () =>
      new MemoryService({
        store: getStore(),
        embedder: createFakeEmbedder(),
        retrievalPolicy: noSearchPolicy,
        logger: noopLogger,
      });
    const texts = (page: EntryPage) => page.entries.map((entry) => entry.text).sort();

    it(`keeps the entries whose text contains it, in any case, and counts them in total ${RULE}`, async () => {
      const memory = service();
      const scopeId = `list-text-${randomUUID()}`;
      const other = `list-text-other-${randomUUID()}`;
      await memory.remember(scopeId, {
        entries: [
          { text: 'The INVOICE run starts on Monday.', kind: 'fact', tags: ['billing'] },
          { text: 'Invoices are archived after a year.', kind: 'note' },
          { text: 'Lunch is at noon.', kind: 'note', metadata: { topic: 'invoice' } },
          { text: 'Ärger im Büro: der Drucker streikt.' },
          { text: 'İstanbul office opens at nine.' },
          { text: 'ΟΔΟΣ is the Greek word for road.' },
        ],
      });
      await memory.remember(other, { entries: [{ text: 'An invoice in another scope.' }] });

      const invoice = await memory.list(scopeId, { text: 'invoice' });
      expect(texts(invoice)).toEqual([
        'Invoices are archived after a year.',
        'The INVOICE run starts on Monday.',
      ]);
      expect(invoice.total).toBe(2);
      // The needle is folded too; kind, tags and metadata are not text.
      expect(texts(await memory.list(scopeId, { text: 'INVOICE RUN' }))).toEqual([
        'The INVOICE run starts on Monday.',
      ]);
      expect((await memory.list(scopeId, { text: 'billing' })).total).toBe(0);
      expect((await memory.list(scopeId, { text: 'fact' })).total).toBe(0);
      // Letters beyond ASCII fold as PostgreSQL's lower() folds them.
      expect(texts(await memory.list(scopeId, { text: 'ärger IM büro' }))).toEqual([
        'Ärger im Büro: der Drucker streikt.',
      ]);
      expect(texts(await memory.list(scopeId, { text: 'istanbul' }))).toEqual([
        'İstanbul office opens at nine.',
      ]);
      expect(texts(await memory.list(scopeId, { text: 'οδοσ' }))).toEqual([
        'ΟΔΟΣ is the Greek word for road.',
      ]);
      // Nothing matches: an empty page with a total of 0.
      expect(await memory.list(scopeId, { text: 'zeppelin' })).toMatchObject({ entries: [], total: 0 });
    });

    it(`matches % _ \\ and quotes as plain characters, never as a pattern ${RULE}`, async () => {
      const memory = service();
      const scopeId = `list-text-literal-${randomUUID()}`;
      await memory.remember(scopeId, {
        entries: [
          { text: 'growth was 5% in May' },
          { text: 'growth was 50 in May' },
          { text: 'the file is a_b.txt' },
          { text: 'the file is axb.txt' },
          { text: 'path C:\\temp\\x' },
          { text: 'path C:/temp/x' },
          { text: 'O\'Brien said "hi"; -- DROP' },
        ],
      });
      expect(texts(await memory.list(scopeId, { text: '5%' }))).toEqual(['growth was 5% in May']);
      expect(texts(await memory.list(scopeId, { text: '%' }))).toEqual(['growth was 5% in May']);
      expect(texts(await memory.list(scopeId, { text: 'a_b' }))).toEqual(['the file is a_b.txt']);
      expect(texts(await memory.list(scopeId, { text: '_' }))).toEqual(['the file is a_b.txt']);
      expect(texts(await memory.list(scopeId, { text: 'C:\\temp' }))).toEqual(['path C:\\temp\\x']);
      expect(texts(await memory.list(scopeId, { text: 'o\'brien SAID "HI"; --' }))).toEqual([
        'O\'Brien said "hi"; -- DROP',
      ]);
    });

    it(`pages through its matches in every order, with the same total on every page ${RULE}`, async () => {
      const memory = service();
      const scopeId = `list-text-pages-${randomUUID()}`;
      // 12 entries over 12 revisions; every third says "needle", so 4 match.
      for (let i = 0; i < 12; i += 1) {
        await memory.remember(scopeId, {
          entries: [{ text: i % 3 === 0 ? `entry ${i} holds the Needle` : `entry ${i} holds hay` }],
        });
      }
      const expected = [0, 3, 6, 9].map((i) => `entry ${i} holds the Needle`);
      const newest = await allPages(memory, scopeId, { text: 'needle', order: 'newest', limit: 3 });
      expect(newest).toEqual({ texts: [...expected].reverse(), totals: [4, 4], pages: 2 });
      const oldest = await allPages(memory, scopeId, { text: 'NEEDLE', order: 'oldest', limit: 3 });
      expect(oldest).toEqual({ texts: expected, totals: [4, 4], pages: 2 });
      const byId = await allPages(memory, scopeId, { text: 'needle', limit: 1 });
      expect(byId.texts.sort()).toEqual([...expected].sort());
      expect(byId.totals).toEqual([4, 4, 4, 4]);
      // A page of exactly the matches has no next page.
      expect((await memory.list(scopeId, { text: 'needle', limit: 4 })).nextCursor).toBeUndefined();
    });

    it(`combines with state, filter and revision: every condition holds ${RULE}`, async () => {
      const memory = service();
      const scopeId = `list-text-and-${randomUUID()}`;
      const written = await memory.remember(scopeId, {
        entries: [
          { text: 'ferry to the island at noon', kind: 'plan', pinned: true },
          { text: 'ferry tickets cost nine euros', kind: 'fact' },
          { text: 'the ferry was late again', kind: 'note' },
          { text: 'bus to the airport', kind: 'plan' },
        ],
      });
      const [plan, tickets] = written.entries;
      await memory.forget(scopeId, { entryId: tickets!.entryId });
      await memory.revise(scopeId, { entryId: plan!.entryId, text: 'boat to the island at noon' });

      expect(texts(await memory.list(scopeId, { text: 'ferry' }))).toEqual(['the ferry was late again']);
      expect(texts(await memory.list(scopeId, { text: 'ferry', state: 'inactive' }))).toEqual([
        'ferry tickets cost nine euros',
      ]);
      expect((await memory.list(scopeId, { text: 'ferry', state: 'all' })).total).toBe(2);
      // At revision 1 the plan still said ferry, and the tickets were active.
      const before = await memory.list(scopeId, { text: 'ferry', revision: 1 });
      expect(texts(before)).toEqual([
        'ferry tickets cost nine euros',
        'ferry to the island at noon',
        'the ferry was late again',
      ]);
      expect(
        texts(await memory.list(scopeId, { text: 'ferry', revision: 1, filter: { kinds: ['plan'] } })),
      ).toEqual(['ferry to the island at noon']);
      expect(
        (await memory.list(scopeId, { text: 'ferry', revision: 1, filter: { pinned: false } })).total,
      ).toBe(2);
      expect(texts(await memory.list(scopeId, { text: 'island', filter: { kinds: ['plan'] } }))).toEqual([
        'boat to the island at noon',
      ]);
    });

    it(`never finds a purged entry's text, at any revision, and shows no purged markers ${RULE}`, async () => {
      const memory = service();
      const scopeId = `list-text-purge-${randomUUID()}`;
      await memory.remember(scopeId, { entries: [{ text: 'alpha keeps its word' }] });
      const secret = await memory.remember(scopeId, { entries: [{ text: 'alpha quokka code 7741' }] });
      await memory.purge(scopeId, { entryId: secret.entries[0]!.entryId, purgedBy: 'contract' });
      for (const revision of [2, 3]) {
        expect(await memory.list(scopeId, { text: 'quokka', revision })).toEqual({
          memory: expect.objectContaining({ revision }),
          entries: [],
          total: 0,
        });
        const alpha = await memory.list(scopeId, { text: 'alpha', revision });
        expect(texts(alpha)).toEqual(['alpha keeps its word']);
        expect(alpha.purged).toBeUndefined();
      }
      // Without the text, the unfiltered list at revision 2 does show the marker.
      expect((await memory.list(scopeId, { revision: 2 })).purged).toHaveLength(1);
    });

    it(`refuses an empty, too long or unstorable text, naming the field ${RULE}`, async () => {
      const memory = service();
      const scopeId = `list-text-bad-${randomUUID()}`;
      await memory.remember(scopeId, { entries: [{ text: 'x'.repeat(LIST_TEXT_MAX_CHARS) }] });
      expect((await memory.list(scopeId, { text: 'X'.repeat(LIST_TEXT_MAX_CHARS) })).total).toBe(1);
      const cases: [unknown, string][] = [
        ['', 'text must be at least 1 character'],
        ['x'.repeat(LIST_TEXT_MAX_CHARS + 1), `text must be at most ${LIST_TEXT_MAX_CHARS} characters`],
        ['a\u0000b', 'text must not contain NUL (U+0000)'],
        ['\ud800', 'text must be well-formed Unicode (no lone surrogates)'],
        [42, 'text must be a string'],
      ];
      for (const [text, rule] of cases) {
        const refused = await memory.list(scopeId, { text: text as string }).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(refused, rule).toBeInstanceOf(ValidationError);
        expect((refused as ValidationError).issues).toEqual([{ field: 'text', rule }]);
      }
    });
  });
}
