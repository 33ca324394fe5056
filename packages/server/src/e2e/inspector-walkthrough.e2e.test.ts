// What a walk through every page of the inspector found (issue 30.2), each fixed and shown here in
// Debian's Chromium against a real `powercontext server run` on PGlite, with axe on each page.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectAccessible,
  type InspectorStand,
  signIn as signInAt,
  startInspectorStand,
} from '../testing-support/inspector-browser.js';
import type { ServerProcess } from '../testing-support/server-process.js';

declare const document: { readonly activeElement: { readonly id: string; readonly tagName: string } | null };

const ADMIN = 'walk-admin-secret';
const ALPHA_ONLY = 'walk-alpha-secret';
const EVERY_SCOPE = 'walk-every-secret';

let stand: InspectorStand;
let server: ServerProcess;

const api = <T>(path: string, body: unknown): Promise<T> => stand.api<T>(path, body, ADMIN);
const signIn = (page: Page, key: string): Promise<void> => signInAt(page, server.url, key);

/** A fresh tab (its own session storage); every console error and API request is recorded. */
async function openTab() {
  const context = await stand.browser.newContext({ viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const consoleErrors: string[] = [];
  const requests: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('request', (request) => requests.push(`${request.method()} ${new URL(request.url()).pathname}`));
  return { page, consoleErrors, requests, close: () => context.close() };
}

beforeAll(async () => {
  stand = await startInspectorStand({
    prefix: 'pc-inspector-walk-',
    keys: [
      { id: 'admin', secret: ADMIN, scopes: ['alpha', 'beta'], permissions: ['read', 'write', 'explain'] },
      { id: 'alpha-only', secret: ALPHA_ONLY, scopes: ['alpha'], permissions: ['read', 'write'] },
      { id: 'every', secret: EVERY_SCOPE, scopes: '*', permissions: ['read'] },
    ],
  });
  server = stand.server;
  await api('/v1/memory/remember', {
    scope_id: 'alpha',
    entries: [
      { text: 'Alice prefers green tea over coffee in the afternoon.' },
      { text: 'The deploy runbook lives in the ops wiki under Runbooks.' },
      ...Array.from({ length: 8 }, (_, index) => ({
        text: `Tea harvest note ${index}: the pickers on terrace ${index} brought in young leaves before the heat of the day.`,
        sources: [{ source_id: `terrace-${index}` }],
      })),
    ],
  });
  await api('/v1/memory/remember', {
    scope_id: 'beta',
    entries: [{ text: 'Beta keeps its launch date quiet.' }],
  });
}, 120_000);

afterAll(async () => {
  await stand?.close();
});

/** The entry id of alpha's entry with this text. */
async function entryIdOf(text: string): Promise<string> {
  const page = await api<{ entries: { entry_id: string; text: string }[] }>('/v1/memory/entries/list', {
    scope_id: 'alpha',
    state: 'all',
  });
  return page.entries.find((entry) => entry.text === text)!.entry_id;
}

describe('the inspector after the walk through every page (issue 30.2)', { timeout: 90_000 }, () => {
  it('a visit without a key asks for one without a refused call, so the console stays clean', async () => {
    const tab = await openTab();
    try {
      await tab.page.goto(`${server.url}/ui/`);
      await tab.page.getByRole('heading', { name: 'Sign in with an API key' }).waitFor();
      expect(tab.requests).toContain('GET /ui/session.json');
      expect(tab.requests).not.toContain('GET /v1/scopes');
      expect(tab.consoleErrors).toEqual([]);
      await expectAccessible(tab.page, 'sign-in');
    } finally {
      await tab.close();
    }
  });

  it('"Enter another API key" after a wrong key empties the field and focuses it; the right key then signs in', async () => {
    const tab = await openTab();
    try {
      await tab.page.goto(`${server.url}/ui/`);
      await tab.page.getByRole('heading', { name: 'Sign in with an API key' }).waitFor();
      await tab.page.keyboard.type('not-a-key');
      await tab.page.keyboard.press('Enter');
      const alert = tab.page.getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).toContain('Not signed in (401)');
      await expectAccessible(tab.page, 'wrong key');
      await alert.getByRole('button', { name: 'Enter another API key' }).click();
      const input = tab.page.getByLabel('API key', { exact: true });
      expect(await input.inputValue()).toBe('');
      expect(await input.evaluate((element) => (element as unknown) === document.activeElement)).toBe(true);
      await tab.page.keyboard.type(ADMIN);
      await tab.page.keyboard.press('Enter');
      await tab.page.getByRole('heading', { name: 'Scopes', level: 1 }).waitFor();
    } finally {
      await tab.close();
    }
  });

  it('"Skip to content" focuses the page and keeps the route, so a reload stays on the same page', async () => {
    const tab = await openTab();
    try {
      await signIn(tab.page, ADMIN);
      await tab.page.goto(`${server.url}/ui/#/scope/alpha/entries`);
      await tab.page.getByRole('heading', { name: 'Entries of alpha' }).waitFor();
      // Once the route has loaded, the page moves focus to its heading: wait for that first, or it
      // can take the focus from the skip link between the focus below and the key press.
      await tab.page.getByText(/^Read at revision/).waitFor();
      await tab.page.getByRole('link', { name: 'Skip to content' }).focus();
      await tab.page.keyboard.press('Enter');
      // The click that Enter makes is dispatched after the key press returns: wait for its focus.
      await expect.poll(() => tab.page.evaluate(() => document.activeElement?.id)).toBe('main');
      expect(new URL(tab.page.url()).hash).toBe('#/scope/alpha/entries');
      await tab.page.reload();
      await tab.page.getByRole('heading', { name: 'Entries of alpha' }).waitFor();
    } finally {
      await tab.close();
    }
  });

  it('a scope the key may not use is refused at once, with no form and no call', async () => {
    const tab = await openTab();
    try {
      await signIn(tab.page, ALPHA_ONLY);
      tab.requests.length = 0;
      await tab.page.goto(`${server.url}/ui/#/scope/beta/search`);
      const alert = tab.page.getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).toContain('Forbidden (403)');
      expect(await alert.textContent()).toContain('This API key may not use scope beta.');
      expect(await tab.page.getByLabel('Query').count()).toBe(0);
      expect(tab.requests.filter((request) => request.includes('/v1/memory'))).toEqual([]);
      await expectAccessible(tab.page, 'forbidden scope');
    } finally {
      await tab.close();
    }
  });

  it('the open-a-scope form stands apart from the scope cards, under its own heading', async () => {
    const tab = await openTab();
    try {
      await signIn(tab.page, EVERY_SCOPE);
      const main = tab.page.locator('main');
      const cards = main.getByRole('list', { name: 'Scopes' }).getByRole('listitem');
      await expect.poll(() => cards.count()).toBe(2);
      const open = main.getByRole('region', { name: 'Open another scope by name' });
      await open.getByLabel('Scope name').waitFor();
      // Only the two scopes are cards; the form is not one.
      expect(await main.locator('.card').count()).toBe(2);
      expect(await open.locator('.card').count()).toBe(0);
      await open.getByLabel('Scope name').fill('gamma');
      await open.getByRole('button', { name: 'Open' }).click();
      await tab.page.getByRole('heading', { name: 'Entries of gamma' }).waitFor();
      await tab.page.goBack();
      await open.waitFor();
      await expectAccessible(tab.page, 'scopes of every-scope key');
    } finally {
      await tab.close();
    }
  });

  it('a search with no hits says so in words and what to try; explain states the policy in words', async () => {
    const tab = await openTab();
    try {
      await signIn(tab.page, ADMIN);
      await tab.page.goto(`${server.url}/ui/#/scope/alpha/search`);
      await tab.page.getByLabel('Query').fill('zeppelin quasar');
      await tab.page.getByLabel('Query').press('Enter');
      const main = tab.page.locator('main');
      await main.getByText('No entry matched “zeppelin quasar”.').waitFor();
      expect(await main.textContent()).toContain('try other words');
      await main.getByRole('link', { name: 'look through the entries' }).waitFor();
      const how = main.getByRole('region', { name: 'How the search ran' });
      const words = await how.locator('p').allTextContents();
      expect(words.join(' ')).toContain('fused by reciprocal rank (k = 60)');
      // The raw id is not in the sentences, only in its disclosure.
      expect(words.join(' ')).not.toContain('powercontext.retrieval');
      expect(await how.locator('details code').textContent()).toMatch(/^powercontext\.retrieval\./u);
      await expectAccessible(tab.page, 'search without hits');
    } finally {
      await tab.close();
    }
  });

  it('moving the budget slider prepares the context again, without a click on Prepare', async () => {
    const tab = await openTab();
    try {
      await signIn(tab.page, ADMIN);
      await tab.page.goto(`${server.url}/ui/#/scope/alpha/context`);
      await tab.page.getByLabel('Query').fill('tea harvest');
      await tab.page.getByRole('button', { name: 'Prepare' }).click();
      const framed = tab.page.locator('main').getByRole('region', { name: 'Framed context' });
      await framed.getByText(/ of 2000 /u).waitFor();
      const prepares = () => tab.requests.filter((request) => request === 'POST /v1/context/prepare').length;
      const before = prepares();
      await tab.page.getByLabel('Token budget').fill('300');
      await framed.getByText(/ of 300 /u).waitFor();
      expect(prepares()).toBe(before + 1);
      await expectAccessible(tab.page, 'context after the slider');
    } finally {
      await tab.close();
    }
  });

  it('revise: an empty or unchanged text is answered in the page and nothing is sent', async () => {
    const text = 'The deploy runbook lives in the ops wiki under Runbooks.';
    const entryId = await entryIdOf(text);
    const tab = await openTab();
    try {
      await signIn(tab.page, ADMIN);
      await tab.page.goto(`${server.url}/ui/#/scope/alpha/entry/${entryId}`);
      await tab.page.getByRole('heading', { name: 'Entry history' }).waitFor();
      tab.requests.length = 0;
      const editor = tab.page.getByLabel('New text');
      await editor.fill('   ');
      await tab.page.getByRole('button', { name: 'Revise…' }).click();
      await tab.page.getByText('Write the new text first: an entry cannot be empty.').waitFor();
      expect(await editor.getAttribute('aria-invalid')).toBe('true');
      await expectAccessible(tab.page, 'empty revise');
      await editor.fill(text);
      await tab.page.getByRole('button', { name: 'Revise…' }).click();
      await tab.page.getByText('This is the current text: change it to save a new version.').waitFor();
      expect(await tab.page.getByRole('button', { name: 'Yes, save the new version' }).count()).toBe(0);
      expect(tab.requests.filter((request) => request.includes('/revise'))).toEqual([]);
      expect(tab.consoleErrors).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  it('a forgotten entry says a revision stays forgotten, and the new version is forgotten', async () => {
    const text = 'Alice prefers green tea over coffee in the afternoon.';
    const entryId = await entryIdOf(text);
    await api('/v1/memory/entries/forget', { scope_id: 'alpha', entry_id: entryId });
    const tab = await openTab();
    try {
      await signIn(tab.page, ADMIN);
      await tab.page.goto(`${server.url}/ui/#/scope/alpha/entry/${entryId}`);
      await tab.page.getByRole('heading', { name: 'Current version (forgotten)' }).waitFor();
      const hint = tab.page.getByText(
        'This entry is forgotten: a new version stays forgotten (search and context skip it) until you reactivate it.',
      );
      await hint.waitFor();
      await expectAccessible(tab.page, 'forgotten entry');
      await tab.page.getByLabel('New text').fill('Alice prefers oolong tea in the afternoon.');
      await tab.page.getByRole('button', { name: 'Revise…' }).click();
      await tab.page
        .getByText('Save this text as a new version? The entry stays forgotten until you reactivate it.')
        .waitFor();
      await tab.page.getByRole('button', { name: 'Yes, save the new version' }).click();
      await tab.page
        .locator('main')
        .getByText(/^Done: revise wrote revision \d+\.$/u)
        .waitFor();
      await tab.page.getByRole('heading', { name: 'Current version (forgotten)' }).waitFor();
      const got = await api<{ entry: { state: string; text: string } }>('/v1/memory/entries/get', {
        scope_id: 'alpha',
        entry_id: entryId,
      });
      expect(got.entry).toMatchObject({
        state: 'inactive',
        text: 'Alice prefers oolong tea in the afternoon.',
      });
    } finally {
      await tab.close();
    }
  });
});
