// The memory inspector in a real browser (issue 17, RFC 0012): Debian's Chromium, driven by
// playwright-core (no browser download), against a real `powercontext server run` on PGlite with a
// temporary data directory. One server and one browser for the whole file. Screenshots of every page
// at desktop and phone width go to artifacts/inspector-screenshots/ (CI keeps the folder).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectAccessible as expectAccessibleIn,
  type InspectorStand,
  signIn as signInAt,
  startInspectorStand,
} from '../testing-support/inspector-browser.js';
import type { ServerProcess } from '../testing-support/server-process.js';

// The callbacks given to page.evaluate run in the browser. This package compiles without the DOM
// library, so the few page globals they touch are declared here, for this file only.
interface PageNode {
  readonly tagName: string;
  readonly textContent: string | null;
  readonly attributes: ArrayLike<{ readonly name: string }>;
}
declare const document: {
  readonly activeElement: PageNode | null;
  readonly documentElement: { readonly scrollWidth: number; readonly clientWidth: number };
  readonly head: { append(node: unknown): void };
  querySelectorAll(selector: string): ArrayLike<PageNode>;
  createElement(tag: 'script'): { textContent: string };
  addEventListener(
    type: 'securitypolicyviolation',
    listener: (event: { readonly effectiveDirective: string }) => void,
    options: { once: boolean },
  ): void;
};
declare const window: object;
declare const sessionStorage: { getItem(key: string): string | null };
declare const localStorage: { getItem(key: string): string | null };

const SCREENSHOTS = fileURLToPath(new URL('../../../../artifacts/inspector-screenshots/', import.meta.url));

const ADMIN = 'inspector-admin-secret';
const ALPHA_ONLY = 'inspector-alpha-secret';
const KEY_ITEM = 'powercontext.inspector.key';

const HOSTILE = `<script>window.__pwned = 'script'; alert('script')</script><img src="x" onerror="window.__pwned = 'img'; alert('img')"><a href="javascript:alert('link')">click me</a> herbal tea`;
const HARVEST = [
  'Tea harvest, terrace one: pickers started at dawn and brought in forty kilos of young leaves before the heat.',
  'Tea harvest, terrace two: rain delayed the picking by three days, so the leaves grew larger and more bitter.',
  'Tea harvest, the drying shed: leaves rest on bamboo racks for two days, turned by hand every morning.',
  'Tea harvest, grading: the estate team tasted each batch and sorted it into three grades for the autumn market.',
  'Tea harvest, the budget: wages for seasonal pickers rose by eight percent compared with last spring.',
  'Tea harvest, shipping: the first crates leave the valley by truck on Thursday and reach the port on Monday.',
].map((line) => `${line} ${line.toLowerCase()}`);

let stand: InspectorStand;
let server: ServerProcess;
let context: BrowserContext;
let page: Page;
const dialogs: string[] = [];
const pageErrors: string[] = [];
const consoleErrors: string[] = [];

function watch(target: Page): void {
  target.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  target.on('pageerror', (error) => pageErrors.push(error.message));
  target.on('console', (message) => {
    // A refused API call (401, 403) is logged by the browser itself; anything else is a fault.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
      consoleErrors.push(message.text());
    }
  });
}

const api = <T>(path: string, body: unknown, key = ADMIN): Promise<T> => stand.api<T>(path, body, key);

/** Desktop and phone screenshots of the page as it is, and no sideways scrolling at phone width. */
async function screenshots(name: string, target: Page = page): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await target.screenshot({ path: join(SCREENSHOTS, `${name}-desktop.png`), fullPage: true });
  await target.setViewportSize({ width: 390, height: 844 });
  try {
    const overflow = await target.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow, `${name}: wider than a phone screen`).toBeLessThanOrEqual(0);
    await target.screenshot({ path: join(SCREENSHOTS, `${name}-phone.png`), fullPage: true });
  } finally {
    await target.setViewportSize({ width: 1280, height: 800 });
  }
}

const expectAccessible = (name: string, target: Page = page): Promise<void> =>
  expectAccessibleIn(target, name);
const signIn = (target: Page, key: string): Promise<void> => signInAt(target, server.url, key);

const main = () => page.locator('main');

/** The term/value pairs of the first description list in `scope` (the page's "Kind: note" lines). */
async function factsIn(scope: ReturnType<Page['locator']>): Promise<Record<string, string>> {
  return scope
    .locator('dl')
    .first()
    .evaluate((list) =>
      Object.fromEntries(
        [...list.querySelectorAll('div')].map((pair) => [
          pair.querySelector('dt')?.textContent ?? '',
          pair.querySelector('dd')?.textContent ?? '',
        ]),
      ),
    );
}

beforeAll(async () => {
  stand = await startInspectorStand({
    prefix: 'pc-inspector-e2e-',
    keys: [
      { id: 'admin', secret: ADMIN, scopes: ['alpha', 'beta'], permissions: ['read', 'write', 'explain'] },
      { id: 'alpha-only', secret: ALPHA_ONLY, scopes: ['alpha'], permissions: ['read', 'write'] },
    ],
  });
  server = stand.server;
  await api('/v1/memory/remember', {
    scope_id: 'alpha',
    entries: [
      { text: 'Alice prefers green tea over coffee in the afternoon.', kind: 'preference' },
      { text: 'The deploy runbook lives in the ops wiki under Runbooks.' },
      { text: HOSTILE },
      ...HARVEST.map((text) => ({ text, sources: [{ source_id: 'harvest-notes' }] })),
    ],
  });
  await api('/v1/memory/remember', {
    scope_id: 'beta',
    entries: [{ text: 'Beta keeps its launch date quiet.' }],
  });
  context = await stand.browser.newContext({ viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(10_000);
  page = await context.newPage();
  watch(page);
}, 120_000);

afterAll(async () => {
  await stand?.close();
  // The key never reaches a log line.
  const logs = `${server?.stdout() ?? ''}${server?.stderr() ?? ''}`;
  expect(logs).not.toContain(ADMIN);
  expect(logs).not.toContain(ALPHA_ONLY);
});

describe('the memory inspector in Chromium', () => {
  it('asks for the key once, keeps it in session storage (not the URL), and lists the scopes with head and counts', async () => {
    await screenshotsOfKeyForm();
    await signIn(page, ADMIN);
    expect(page.url()).not.toContain(ADMIN);
    expect(await page.evaluate((item) => sessionStorage.getItem(item), KEY_ITEM)).toBe(ADMIN);
    expect(await page.evaluate((item) => localStorage.getItem(item), KEY_ITEM)).toBeNull();
    const alpha = main()
      .getByRole('listitem')
      .filter({ has: page.getByRole('link', { name: 'alpha' }) });
    await expect.poll(() => alpha.locator('dl').count()).toBe(1);
    expect(await factsIn(alpha)).toEqual({
      'Head revision': '1',
      'Active entries': '9',
      'Forgotten entries': '0',
    });
    const beta = main()
      .getByRole('listitem')
      .filter({ has: page.getByRole('link', { name: 'beta' }) });
    await expect.poll(() => beta.locator('dl').count()).toBe(1);
    expect(await factsIn(beta)).toMatchObject({ 'Active entries': '1' });
    await screenshots('scopes');
    await expectAccessible('scopes');
  });

  it('lists a scope’s entries, filters them by text, and shows stored markup as inert text', async () => {
    await page.getByRole('link', { name: 'alpha' }).click();
    await page.getByRole('heading', { name: 'Entries of alpha' }).waitFor();
    const entries = main().getByRole('list', { name: 'Entries' }).getByRole('listitem');
    await expect.poll(() => entries.count()).toBe(9);
    // The hostile text is on the page exactly as stored, and none of it became markup or ran.
    await main().getByText(HOSTILE, { exact: true }).waitFor();
    const planted = await page.evaluate(() => ({
      pwned: (window as unknown as { __pwned?: unknown }).__pwned ?? null,
      scripts: document.querySelectorAll('main script').length,
      images: document.querySelectorAll('main img').length,
      javascriptLinks: document.querySelectorAll('a[href^="javascript" i]').length,
      handlers: Array.from(document.querySelectorAll('main *')).filter((element) =>
        Array.from(element.attributes).some((attribute) => attribute.name.startsWith('on')),
      ).length,
    }));
    expect(planted).toEqual({ pwned: null, scripts: 0, images: 0, javascriptLinks: 0, handlers: 0 });
    // The server filters by text (any entry of the scope, case-insensitively) when the form is sent.
    await page.getByLabel('Text contains').fill('GREEN TEA');
    await page.getByLabel('Text contains').press('Enter');
    await expect.poll(() => entries.count()).toBe(1);
    expect(await entries.first().textContent()).toContain('Alice prefers green tea over coffee');
    await page.getByLabel('Text contains').fill('');
    await page.getByLabel('Text contains').press('Enter');
    await expect.poll(() => entries.count()).toBe(9);
    await screenshots('entries');
    await expectAccessible('entries');
  });

  it('searches, and explains each hit: score, channel ranks, own words, and the run in words', async () => {
    await page.getByRole('link', { name: 'Search' }).click();
    await page.getByLabel('Query').fill('green tea');
    expect(await page.getByLabel('Explain why each hit was found').isChecked()).toBe(true);
    await page.getByLabel('Query').press('Enter');
    const hits = main().getByRole('list', { name: 'Hits' }).getByRole('listitem');
    await hits.first().waitFor();
    expect(await hits.first().textContent()).toContain('Alice prefers green tea over coffee');
    const why = await factsIn(hits.first());
    expect(why.Score).toMatch(/^0\.\d{4}$/u);
    expect(why['Found by']).toContain('full-text');
    expect(why['Channel ranks']).toContain('full-text #1');
    expect(why['Own words matched']).toBe('green, tea');
    expect(why['Matched only through neighbours']).toBe('none');
    const summary = await main().getByRole('region', { name: 'How the search ran' }).textContent();
    expect(summary).toContain('Asked for mode auto');
    expect(summary).toContain('No reranker ran');
    expect(summary).toContain('Query terms as the full-text index reads them: green, tea');
    await screenshots('search');
    // The top of the page at desktop width, as the README shows it (docs/images/inspector-search.png).
    await page.screenshot({ path: join(SCREENSHOTS, 'search-desktop-top.png') });
    await expectAccessible('search');
  });

  it('opens an entry’s history; forgets it (through a 409 conflict and its retry), reactivates and revises it from the page', async () => {
    const hit = main().getByRole('list', { name: 'Hits' }).getByRole('listitem').first();
    await hit.getByRole('link', { name: 'History and actions' }).click();
    await page.getByRole('heading', { name: 'Entry history' }).waitFor();
    await main().getByRole('heading', { name: 'Version 1: remember at revision 1' }).waitFor();

    await page.getByRole('button', { name: 'Forget…' }).click();
    // Nothing is written before the explicit yes.
    expect(
      (await api<{ entries: unknown[] }>('/v1/memory/entries/list', { scope_id: 'alpha' })).entries,
    ).toHaveLength(9);
    // The first try meets a conflict (as when another writer moved the scope): the page says so and
    // offers a retry, which goes through.
    let conflicts = 0;
    await page.route(
      '**/v1/memory/entries/forget',
      async (route) => {
        conflicts += 1;
        await route.fulfill({
          status: 409,
          contentType: 'application/json',
          body: JSON.stringify({
            error: {
              code: 'revision_conflict',
              message: 'The scope moved during the write',
              retryable: true,
            },
          }),
        });
      },
      { times: 1 },
    );
    await page.getByRole('button', { name: 'Yes, forget it' }).click();
    const conflict = main().getByRole('alert');
    await conflict.waitFor();
    expect(await conflict.textContent()).toContain('Conflict (409)');
    expect(conflicts).toBe(1);
    await conflict.getByRole('button', { name: 'Retry' }).click();
    await main().getByText('Done: forget wrote revision 2.').waitFor();
    await main().getByRole('heading', { name: 'Version 2: forget at revision 2' }).waitFor();
    const active = await api<{ entries: { text: string }[] }>('/v1/memory/entries/list', {
      scope_id: 'alpha',
    });
    expect(active.entries.map((entry) => entry.text)).not.toContain(
      'Alice prefers green tea over coffee in the afternoon.',
    );
    expect(await api('/v1/memory/summary', { scope_id: 'alpha' })).toMatchObject({
      entries: { active: 8, inactive: 1 },
    });

    await page.getByRole('button', { name: 'Reactivate…' }).click();
    await page.getByRole('button', { name: 'Yes, reactivate it' }).click();
    await main().getByText('Done: reactivate wrote revision 3.').waitFor();
    await main().getByRole('heading', { name: 'Version 3: reactivate at revision 3' }).waitFor();
    expect(await main().getByRole('heading', { name: 'Versions (3)' }).count()).toBe(1);
    expect(await api('/v1/memory/summary', { scope_id: 'alpha' })).toMatchObject({
      memory: { revision: 3 },
      entries: { active: 9, inactive: 0 },
    });

    await page.getByLabel('New text').fill('Alice prefers green tea over coffee, without sugar.');
    await page.getByRole('button', { name: 'Revise…' }).click();
    await page.getByRole('button', { name: 'Yes, save the new version' }).click();
    await main().getByText('Done: revise wrote revision 4.').waitFor();
    await main().getByRole('heading', { name: 'Version 4: revise at revision 4' }).waitFor();
    const current = main().getByRole('region', { name: /Current version/u });
    expect(await current.locator('.memory-text').textContent()).toBe(
      'Alice prefers green tea over coffee, without sugar.',
    );
    await screenshots('entry');
    await expectAccessible('entry');
  });

  it('prepares a context under the budget from the slider, and says why each omitted candidate is out', async () => {
    await page.getByRole('link', { name: 'Prepare context' }).click();
    await page.getByLabel('Query').fill('tea harvest');
    await page.getByLabel('Token budget').fill('300');
    expect(await main().locator('output').textContent()).toBe('300 tokens');
    await page.getByRole('button', { name: 'Prepare' }).click();
    const framed = main().getByRole('region', { name: 'Framed context' });
    await framed.waitFor();
    const tokens = /^(\d+) of 300 /u.exec((await factsIn(framed)).Tokens ?? '');
    expect(tokens).not.toBeNull();
    expect(Number(tokens![1])).toBeLessThanOrEqual(300);
    expect(await framed.locator('pre').textContent()).toContain('Tea harvest');
    const omitted = main().getByRole('region', { name: /Left out/u });
    const omittedText = await omitted.textContent();
    expect(omittedText).toMatch(/Left out \([1-9]\d*\)/u);
    expect(omittedText).toContain('did not fit in what was left of the 300-token budget');
    await screenshots('context');
    await expectAccessible('context');
  });

  it('shows the changes between two revisions', async () => {
    await page.getByRole('link', { name: 'Changes' }).click();
    const changes = main().getByRole('list', { name: 'Changes' }).getByRole('listitem');
    // 9 remembered, then forget, reactivate and revise.
    await expect.poll(() => changes.count()).toBe(12);
    await page.getByLabel('After revision').fill('1');
    await page.getByLabel('Up to revision').fill('3');
    await page.getByRole('button', { name: 'Show changes' }).click();
    await expect.poll(() => changes.count()).toBe(2);
    expect(await changes.nth(0).textContent()).toContain('Revision 2: forget');
    expect(await changes.nth(1).textContent()).toContain('Revision 3: reactivate');
    await screenshots('changes');
    await expectAccessible('changes');
  });

  it('works from the keyboard: skip link first, links by Tab, focus on the new page’s heading', async () => {
    await page.goto(`${server.url}/ui/#/`);
    await page.reload();
    await page.getByRole('heading', { name: 'Scopes', level: 1 }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    let reached = false;
    for (let step = 0; step < 10 && !reached; step += 1) {
      await page.keyboard.press('Tab');
      reached = await page.evaluate(() => document.activeElement?.textContent === 'alpha');
    }
    expect(reached).toBe(true);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Entries of alpha' }).waitFor();
    await expect
      .poll(() =>
        page.evaluate(() => `${document.activeElement?.tagName} ${document.activeElement?.textContent}`),
      )
      .toBe('H1 Entries of alpha');
  });

  it('a key of one scope sees only that scope, and a 403 is shown as forbidden', async () => {
    const limited = await stand.browser.newContext({ viewport: { width: 1280, height: 800 } });
    limited.setDefaultTimeout(10_000);
    const other = await limited.newPage();
    watch(other);
    try {
      await signIn(other, ALPHA_ONLY);
      const scopes = other.locator('main').getByRole('list', { name: 'Scopes' }).getByRole('listitem');
      expect(await scopes.count()).toBe(1);
      expect(await scopes.first().textContent()).toContain('alpha');
      expect(await other.locator('main').textContent()).not.toContain('beta');
      // The search page offers no explain to a key without the permission.
      await other.goto(`${server.url}/ui/#/scope/alpha/search`);
      expect(await other.getByLabel('Explain why each hit was found').isDisabled()).toBe(true);
      await other.getByText('Needs the explain permission, which this key lacks.').waitFor();
      // Another scope by its address: the API's 403, in words.
      await other.goto(`${server.url}/ui/#/scope/beta/entries`);
      const alert = other.getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).toContain('Forbidden (403)');
      expect(await alert.textContent()).toContain('scope_forbidden');
      expect(await other.locator('main').textContent()).not.toContain('Beta keeps its launch date quiet');
      await screenshots('forbidden', other);
      await expectAccessible('forbidden', other);
    } finally {
      await limited.close();
    }
  });

  it('runs under its CSP: no inline script; nothing planted ran, no dialog opened, no page error', async () => {
    const response = await fetch(`${server.url}/ui/`);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await response.text()).not.toMatch(/<script>|<style>| on[a-z]+=/u);
    // A script planted inline (as injected markup would be) is refused, and says so.
    const probe = await context.newPage();
    try {
      await probe.goto(`${server.url}/ui/`);
      const outcome = await probe.evaluate(async () => {
        const violation = new Promise<string>((resolve) =>
          document.addEventListener('securitypolicyviolation', (event) => resolve(event.effectiveDirective), {
            once: true,
          }),
        );
        const script = document.createElement('script');
        script.textContent = 'window.__inline = eval("1 + 1")';
        document.head.append(script);
        return {
          directive: await violation,
          ran: (window as unknown as { __inline?: number }).__inline ?? null,
        };
      });
      expect(outcome).toEqual({ directive: 'script-src-elem', ran: null });
    } finally {
      await probe.close();
    }
    expect(dialogs).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });
});

async function screenshotsOfKeyForm(): Promise<void> {
  await page.goto(`${server.url}/ui/`);
  await page.getByRole('heading', { name: 'Sign in with an API key' }).waitFor();
  await screenshots('sign-in');
  await expectAccessible('sign-in');
}
