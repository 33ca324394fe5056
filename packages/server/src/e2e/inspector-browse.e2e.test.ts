// Browsing and steering in the inspector (issue 30 §2, issue 29): the entries page lists what the
// server lists (newest first, filtered by kind, tags, pinned, source, state and text, with totals and
// page counts), and search and prepare context send a filter. Debian's Chromium against a real
// `powercontext server run` on PGlite; every request body the page sends is recorded and checked.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectAccessible,
  type InspectorStand,
  signIn,
  startInspectorStand,
} from '../testing-support/inspector-browser.js';

// The one page global the callbacks given to page.evaluate touch (this package has no DOM library).
declare const document: { readonly documentElement: { scrollWidth: number; clientWidth: number } };

const SCREENSHOTS = fileURLToPath(new URL('../../../../artifacts/inspector-screenshots/', import.meta.url));
const ADMIN = 'browse-admin-secret';
const SCOPE = 'browse';
const COUNT = 60;
const TOPICS = [
  'invoices were sent to the printers',
  'the ferry timetable changed for winter',
  'the garden beds need water on Fridays',
  'the team met on Monday about hiring',
  'the office moved to the second floor',
];

/** Entry n (1-60), remembered alone so that it is written at revision n. */
function seed(n: number) {
  const month = String(((n - 1) % 12) + 1).padStart(2, '0');
  return {
    text: `Entry ${label(n)} of the browse ledger: ${n === 3 ? 'a zebra crossing was painted outside' : TOPICS[n % 5]}.`,
    kind: kindOf(n),
    tags: [...(n % 4 === 0 ? ['billing'] : []), ...(n % 5 === 0 ? ['ops'] : [])],
    pinned: n % 10 === 7,
    sources: n % 7 === 0 ? [{ source_id: 'minutes' }] : [],
    occurred_at: `2026-${month}-15T12:00:00Z`,
  };
}
const label = (n: number) => String(n).padStart(2, '0');
const kindOf = (n: number) => (n % 2 === 0 ? 'fact' : n % 3 === 0 ? 'decision' : 'note');
/** Entry 2 is forgotten after the seeding (revision 61). */
const FORGOTTEN = 2;
const active = Array.from({ length: COUNT }, (_, index) => COUNT - index).filter((n) => n !== FORGOTTEN);

let stand: InspectorStand;
let context: BrowserContext;
let page: Page;
/** The JSON bodies the page sent, by API path. */
const sent: { path: string; body: Record<string, unknown> }[] = [];
const writtenAt = new Map<number, string>();

const bodiesTo = (path: string) => sent.filter((request) => request.path === path).map((r) => r.body);
const main = () => page.locator('main');
const cards = () => main().getByRole('list', { name: 'Entries' }).getByRole('listitem');
const meta = () => main().locator('p.meta');

/** The entry numbers of the cards shown, in order. */
async function shown(list: Locator = cards()): Promise<number[]> {
  const texts = await list.locator('.memory-text').allTextContents();
  return texts.map((text) => Number(/^Entry (\d+)/u.exec(text)?.[1]));
}

/** The term/value pairs of each card's description list. */
async function factsOf(list: Locator): Promise<Record<string, string>[]> {
  return list.evaluateAll((items) =>
    items.map((item) =>
      Object.fromEntries(
        [...item.querySelectorAll('dl div')].map((pair) => [
          pair.querySelector('dt')?.textContent ?? '',
          pair.querySelector('dd')?.textContent ?? '',
        ]),
      ),
    ),
  );
}

/** The page's way of showing a time: ISO 8601 to the second, in UTC. */
const shownTime = (iso: string) => iso.replace('T', ' ').replace(/\.\d+Z$/u, ' UTC');

/** Waits until the list says `words` (its "Read at revision ..." line). */
async function listSays(words: string): Promise<void> {
  await expect.poll(() => meta().textContent()).toBe(`Read at revision ${COUNT + 1}: ${words}`);
}

/** Desktop and phone screenshots (CI keeps the folder), and nothing wider than a phone's screen. */
async function screenshots(name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}-desktop.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow, `${name}: wider than a phone screen`).toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-phone.png`), fullPage: true });
  } finally {
    await page.setViewportSize({ width: 1280, height: 800 });
  }
}

/** Opens a page of the scope afresh (a reload: a visit to the address already shown changes nothing). */
async function visit(scopePage: 'entries' | 'search' | 'context', heading: string): Promise<void> {
  await page.goto(`${stand.server.url}/ui/#/scope/${SCOPE}/${scopePage}`);
  await page.reload();
  await page.getByRole('heading', { name: heading }).waitFor();
}

async function openEntries(): Promise<void> {
  await visit('entries', `Entries of ${SCOPE}`);
  await listSays(`20 of ${COUNT - 1} entries, page 1 of 3.`);
}

beforeAll(async () => {
  stand = await startInspectorStand({
    prefix: 'pc-inspector-browse-',
    keys: [{ id: 'admin', secret: ADMIN, scopes: [SCOPE], permissions: ['read', 'write', 'explain'] }],
  });
  for (let n = 1; n <= COUNT; n += 1) {
    const written = await stand.api<{ memory: { revision: number } }>(
      '/v1/memory/remember',
      { scope_id: SCOPE, entries: [seed(n)] },
      ADMIN,
    );
    expect(written.memory.revision).toBe(n);
  }
  const all = await stand.api<{ entries: { text: string; entry_id: string; written_at: string }[] }>(
    '/v1/memory/entries/list',
    { scope_id: SCOPE, limit: 200 },
    ADMIN,
  );
  for (const entry of all.entries)
    writtenAt.set(Number(/^Entry (\d+)/u.exec(entry.text)![1]), entry.written_at);
  const forgotten = all.entries.find((entry) => entry.text.startsWith(`Entry ${label(FORGOTTEN)} `))!;
  await stand.api('/v1/memory/entries/forget', { scope_id: SCOPE, entry_id: forgotten.entry_id }, ADMIN);

  // UTC in the page too, so the times typed into the filters are UTC times.
  context = await stand.browser.newContext({ viewport: { width: 1280, height: 800 }, timezoneId: 'UTC' });
  context.setDefaultTimeout(10_000);
  page = await context.newPage();
  page.on('request', (request) => {
    const path = new URL(request.url()).pathname;
    if (request.method() === 'POST' && path.startsWith('/v1/')) {
      sent.push({ path, body: request.postDataJSON() as Record<string, unknown> });
    }
  });
  await signIn(page, stand.server.url, ADMIN);
}, 180_000);

afterAll(async () => {
  await stand?.close();
});

describe('browsing a scope’s entries in the inspector', { timeout: 90_000 }, () => {
  it('lists newest first, 20 a page, with the total, the page count, and each version’s written time, tags and pinned', async () => {
    await openEntries();
    expect(bodiesTo('/v1/memory/entries/list').at(-1)).toEqual({
      scope_id: SCOPE,
      state: 'active',
      limit: 20,
      order: 'newest',
    });
    sent.length = 0;
    expect(await shown()).toEqual(active.slice(0, 20));
    const first = (await factsOf(cards()))[0]!;
    expect(first).toMatchObject({
      Kind: 'fact',
      Tags: 'billing, ops',
      Pinned: 'no',
      Written: shownTime(writtenAt.get(60)!),
      'Written at revision': '60',
      Occurred: '2026-12-15 12:00:00 UTC',
    });
    await expectAccessible(page, 'entries, page 1');

    await page.getByRole('button', { name: 'Next page' }).click();
    await listSays(`20 of ${COUNT - 1} entries, page 2 of 3.`);
    expect(await shown()).toEqual(active.slice(20, 40));
    await page.getByRole('button', { name: 'Next page' }).click();
    await listSays(`19 of ${COUNT - 1} entries, page 3 of 3.`);
    expect(await shown()).toEqual(active.slice(40));
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    // The zebra (entry 3) and a pinned entry (7) are only on the last page of the unfiltered list.
    expect(await shown()).toEqual(expect.arrayContaining([3, 7]));
    const pinnedCard = (await factsOf(cards()))[(await shown()).indexOf(7)]!;
    expect(pinnedCard).toMatchObject({ Pinned: 'yes', Sources: 'minutes', Kind: 'note', Tags: 'none' });
    // Later pages keep reading the first page's revision, through the server's cursor.
    const pages = bodiesTo('/v1/memory/entries/list');
    expect(pages).toHaveLength(2);
    expect(pages[1]).toMatchObject({ order: 'newest', cursor: expect.any(String) });
    expect(pages[1]).not.toHaveProperty('filter');
  });

  it('finds by text an entry beyond the first page, on the server, and keeps the text in the address across a reload', async () => {
    await openEntries();
    sent.length = 0;
    await page.getByLabel('Text contains').fill('ZEBRA crossing');
    await page.getByLabel('Text contains').press('Enter');
    await listSays('1 of 1 entry, page 1 of 1.');
    expect(await shown()).toEqual([3]);
    expect(bodiesTo('/v1/memory/entries/list')).toEqual([
      { scope_id: SCOPE, state: 'active', limit: 20, order: 'newest', text: 'ZEBRA crossing' },
    ]);
    expect(new URL(page.url()).hash).toBe(`#/scope/${SCOPE}/entries?text=ZEBRA+crossing`);
    await expectAccessible(page, 'entries filtered by text');
    await screenshots('entries-filtered');

    await page.reload();
    await listSays('1 of 1 entry, page 1 of 1.');
    expect(await page.getByLabel('Text contains').inputValue()).toBe('ZEBRA crossing');
    expect(await shown()).toEqual([3]);

    // A text that matches many: the total and the pages are the matches'.
    await page.getByLabel('Text contains').fill('ferry');
    await page.getByLabel('Text contains').press('Enter');
    const ferries = active.filter((n) => n !== 3 && n % 5 === 1);
    await listSays(`${ferries.length} of ${ferries.length} entries, page 1 of 1.`);
    expect(await shown()).toEqual(ferries);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await listSays(`20 of ${COUNT - 1} entries, page 1 of 3.`);
    expect(new URL(page.url()).hash).toBe(`#/scope/${SCOPE}/entries`);
  });

  it('narrows by kind, tags, pinned, source, state and order on the server, each with its own total', async () => {
    await openEntries();
    const lastList = () => bodiesTo('/v1/memory/entries/list').at(-1);
    const apply = async (label: string, value: string) => {
      await page.getByRole('button', { name: 'Clear filters' }).click();
      await listSays(`20 of ${COUNT - 1} entries, page 1 of 3.`);
      await page.getByLabel(label, { exact: true }).fill(value);
      await page.getByLabel(label, { exact: true }).press('Enter');
    };

    await apply('Kinds', 'decision');
    const decisions = active.filter((n) => kindOf(n) === 'decision');
    await listSays(`${decisions.length} of ${decisions.length} entries, page 1 of 1.`);
    expect(await shown()).toEqual(decisions);
    expect(lastList()).toMatchObject({ filter: { kinds: ['decision'] }, order: 'newest' });

    await apply('Kinds', 'fact');
    const facts = active.filter((n) => kindOf(n) === 'fact');
    await listSays(`20 of ${facts.length} entries, page 1 of 2.`);
    expect(await shown()).toEqual(facts.slice(0, 20));

    await apply('Tags', 'billing, OPS');
    await listSays('3 of 3 entries, page 1 of 1.');
    expect(await shown()).toEqual([60, 40, 20]);
    expect(lastList()).toMatchObject({ filter: { tags_all: ['billing', 'OPS'] } });

    await apply('Sources', 'minutes');
    await listSays('8 of 8 entries, page 1 of 1.');
    expect(await shown()).toEqual([56, 49, 42, 35, 28, 21, 14, 7]);
    expect(lastList()).toMatchObject({ filter: { source_ids: ['minutes'] } });

    // Selects apply as soon as they change.
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await listSays(`20 of ${COUNT - 1} entries, page 1 of 3.`);
    await page.getByLabel('Pinned', { exact: true }).selectOption('true');
    await listSays('6 of 6 entries, page 1 of 1.');
    expect(await shown()).toEqual([57, 47, 37, 27, 17, 7]);
    expect(lastList()).toMatchObject({ filter: { pinned: true } });
    await page.getByLabel('Order').selectOption('oldest');
    await listSays('6 of 6 entries, page 1 of 1.');
    expect(await shown()).toEqual([7, 17, 27, 37, 47, 57]);
    expect(lastList()).toMatchObject({ filter: { pinned: true }, order: 'oldest' });
    expect(new URL(page.url()).hash).toBe(`#/scope/${SCOPE}/entries?order=oldest&pinned=true`);

    await page.getByRole('button', { name: 'Clear filters' }).click();
    await listSays(`20 of ${COUNT - 1} entries, page 1 of 3.`);
    await page.getByLabel('Show').selectOption('inactive');
    await listSays('1 of 1 entry, page 1 of 1.');
    expect(await shown()).toEqual([FORGOTTEN]);
    expect((await factsOf(cards()))[0]).toMatchObject({ State: 'forgotten' });
    await expectAccessible(page, 'forgotten entries');

    // A kind the API would refuse is answered beside its field, and nothing is sent.
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await listSays(`20 of ${COUNT - 1} entries, page 1 of 3.`);
    const before = sent.length;
    await page.getByLabel('Kinds').fill('Not A Kind');
    await page.getByLabel('Kinds').press('Enter');
    const problem = main().getByText('“Not A Kind” is not a kind');
    await problem.waitFor();
    expect(await page.getByLabel('Kinds').getAttribute('aria-invalid')).toBe('true');
    expect(sent.length).toBe(before);
    await expectAccessible(page, 'entries with a refused kind');
  });
});

describe('search and prepare context with filters', { timeout: 90_000 }, () => {
  const hits = () => main().getByRole('list', { name: 'Hits' }).getByRole('listitem');
  const searchFor = async (query: string) => {
    await page.getByLabel('Query').fill(query);
    await page.getByRole('button', { name: 'Search' }).click();
  };

  it('sends the filter with the search and shows only matching hits, with kind, tags, pinned and written time', async () => {
    await visit('search', `Search ${SCOPE}`);
    await page.getByLabel('Most hits').fill('50');
    await searchFor('browse ledger');
    await expect.poll(() => hits().count()).toBe(50);
    const unfiltered = await factsOf(hits());
    expect(new Set(unfiltered.map((hit) => hit.Kind))).toEqual(new Set(['fact', 'note', 'decision']));

    sent.length = 0;
    await page.getByText('Filters', { exact: true }).click();
    await page.getByLabel('Kinds').fill('fact');
    await page.getByLabel('Has any tag').fill('ops');
    await searchFor('browse ledger');
    await expect.poll(() => hits().count()).toBe(6);
    expect(bodiesTo('/v1/memory/search')).toEqual([
      expect.objectContaining({
        query: 'browse ledger',
        limit: 50,
        filter: { kinds: ['fact'], tags_any: ['ops'] },
      }),
    ]);
    const filtered = await factsOf(hits());
    expect(filtered.map((hit) => hit.Kind)).toEqual(Array(6).fill('fact'));
    for (const hit of filtered) {
      expect(hit.Tags).toMatch(/\bops\b/u);
      expect(hit.Pinned).toBe('no');
      expect(hit.Written).toMatch(/^2\d{3}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/u);
    }
    expect((await shown(hits())).sort((a, b) => a - b)).toEqual([10, 20, 30, 40, 50, 60]);
    expect(await main().locator('details.filters summary').textContent()).toBe('Filters (2 set)');
    await expectAccessible(page, 'search with filters');
    await screenshots('search-filtered');

    // A time range, typed in the page's local time (UTC here), sent in RFC 3339.
    await page.getByLabel('Kinds').fill('');
    await page.getByLabel('Has any tag').fill('');
    await page.getByLabel('Occurred after').fill('2026-11-01T00:00');
    await searchFor('browse ledger');
    const lateInYear = active.filter((n) => (n - 1) % 12 >= 10);
    await expect.poll(() => hits().count()).toBe(lateInYear.length);
    expect(bodiesTo('/v1/memory/search').at(-1)).toMatchObject({
      filter: { occurred_after: '2026-11-01T00:00:00.000Z' },
    });
    expect((await shown(hits())).sort((a, b) => a - b)).toEqual([...lateInYear].sort((a, b) => a - b));
    for (const hit of await factsOf(hits())) expect(hit.Occurred).toMatch(/^2026-1[12]-15 /u);
  });

  it('stops a filter it can tell is wrong before sending, and shows the server’s 422 in words', async () => {
    await visit('search', `Search ${SCOPE}`);
    await page.getByText('Filters', { exact: true }).click();
    sent.length = 0;
    await page.getByLabel('Written after').fill('2026-06-01T00:00');
    await page.getByLabel('Written before').fill('2026-05-01T00:00');
    await searchFor('browse ledger');
    await main().getByText('Written before must be later than written after.').waitFor();
    expect(await page.getByLabel('Written before').getAttribute('aria-invalid')).toBe('true');
    expect(sent).toEqual([]);
    await expectAccessible(page, 'search with a refused time range');

    await page.getByLabel('Written before').fill('');
    await page.getByLabel('Written after').fill('');
    await page.getByLabel('Has any tag').fill('t'.repeat(65));
    await searchFor('browse ledger');
    const alert = main().getByRole('alert');
    await alert.waitFor();
    const words = await alert.textContent();
    expect(words).toContain('Invalid input (422)');
    expect(words).toContain('filter.tags_any.0');
    expect(words).toContain('tag must be at most 64 characters');
    expect(sent).toHaveLength(1);
    await expectAccessible(page, 'search refused by the server');
  });

  it('prepares a context from the entries the filter keeps', async () => {
    await visit('context', `Prepare context from ${SCOPE}`);
    sent.length = 0;
    await page.getByLabel('Query').fill('browse ledger');
    await page.getByText('Filters', { exact: true }).click();
    await page.getByLabel('Kinds').fill('decision');
    await page.getByLabel('Pinned', { exact: true }).selectOption('false');
    await page.getByRole('button', { name: 'Prepare' }).click();
    const framed = main().getByRole('region', { name: 'Framed context' });
    await framed.waitFor();
    expect(bodiesTo('/v1/context/prepare')).toEqual([
      expect.objectContaining({ filter: { kinds: ['decision'], pinned: false } }),
    ]);
    const text = (await framed.locator('pre').textContent()) ?? '';
    const numbers = [...text.matchAll(/Entry (\d+) of the browse ledger/gu)].map((match) => Number(match[1]));
    expect(numbers.length).toBeGreaterThan(0);
    for (const n of numbers) {
      expect(kindOf(n), `entry ${n}`).toBe('decision');
      expect(seed(n).pinned, `entry ${n}`).toBe(false);
    }
    await expectAccessible(page, 'context with filters');
  });
});
