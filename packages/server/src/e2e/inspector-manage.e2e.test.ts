// What the inspector can change beyond one entry's text (issue 30.2, RFC 0012): the difference between
// two versions of an entry, links between an entry's history and the Changes page, purge with a typed
// confirmation, a scope's export and deletion. Debian's Chromium against a real `powercontext server
// run` on PGlite; one key with the purge permission, one without; axe at 0 violations on each page.
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectAccessible,
  type InspectorStand,
  signIn as signInAt,
  startInspectorStand,
} from '../testing-support/inspector-browser.js';

declare const document: { readonly activeElement: { readonly textContent: string | null } | null };

const PURGER = 'manage-purger-secret';
const WRITER = 'manage-writer-secret';
const SCOPES = ['alpha', 'exported', 'doomed'];

const V1 = 'Alice prefers green tea over coffee in the afternoon.';
const V2 = 'Alice prefers black tea over coffee in the afternoon.';
const V3 = 'Alice prefers black tea in the late afternoon, with milk.';

let stand: InspectorStand;
let tea: string;
/** The revision each version of the tea entry was written at, version 1 first. */
const teaRevisions: number[] = [];
let victim: string;

const api = <T>(path: string, body: unknown): Promise<T> => stand.api<T>(path, body, PURGER);

/** POSTs as the purging key and answers the status and the error code, whatever the status. */
async function attempt(path: string, body: unknown): Promise<{ status: number; code: string | undefined }> {
  const response = await fetch(`${stand.server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${PURGER}` },
    body: JSON.stringify(body),
  });
  const parsed = (await response.json()) as { error?: { code?: string } };
  return { status: response.status, code: parsed.error?.code };
}

/** A fresh tab signed in with `key`; page errors and console errors are recorded. */
async function openTab(key: string) {
  const context = await stand.browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    // A refused API call (here the 410s this file provokes) is logged by the browser itself.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
      errors.push(message.text());
    }
  });
  await signInAt(page, stand.server.url, key);
  return { page, errors, close: () => context.close() };
}

async function go(page: Page, hash: string, heading: string): Promise<void> {
  await page.goto(`${stand.server.url}/ui/${hash}`);
  await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
}

beforeAll(async () => {
  stand = await startInspectorStand({
    prefix: 'pc-inspector-manage-',
    keys: [
      { id: 'purger', secret: PURGER, scopes: SCOPES, permissions: ['read', 'write', 'purge'] },
      { id: 'writer', secret: WRITER, scopes: SCOPES, permissions: ['read', 'write', 'explain'] },
    ],
  });
  type Written = { memory: { revision: number }; entries: { entry_id: string }[] };
  const first = await api<Written>('/v1/memory/remember', {
    scope_id: 'alpha',
    entries: [{ text: V1 }, { text: 'The deploy runbook lives in the ops wiki under Runbooks.' }],
  });
  tea = first.entries[0]!.entry_id;
  victim = first.entries[1]!.entry_id;
  teaRevisions.push(first.memory.revision);
  for (const revise of [
    { text: V2 },
    { text: V3, kind: 'preference', tags: ['tea'], pinned: true, metadata: { source: 'chat' } },
  ]) {
    const written = await api<{ memory: { revision: number } }>('/v1/memory/entries/revise', {
      scope_id: 'alpha',
      entry_id: tea,
      ...revise,
    });
    teaRevisions.push(written.memory.revision);
  }
  for (const scope of ['exported', 'doomed']) {
    await api('/v1/memory/remember', {
      scope_id: scope,
      entries: [
        { text: `The ${scope} scope's first note.`, sources: [{ source_id: 'doc', locator: 'p. 1' }] },
        { text: `The ${scope} scope's second note, with “quotes” and ünïcode.`, metadata: { n: 2 } },
        { text: `A third ${scope} note, tagged.`, kind: 'fact', tags: ['a', 'b'], pinned: true },
      ],
    });
  }
}, 120_000);

afterAll(async () => {
  await stand?.close();
});

describe('the inspector changes memory beyond one entry’s text (issue 30.2)', { timeout: 90_000 }, () => {
  it('compares any two versions of an entry: the words deleted and inserted, and the fields that changed', async () => {
    const tab = await openTab(WRITER);
    try {
      await go(tab.page, `#/scope/alpha/entry/${tea}`, 'Entry history');
      const compare = tab.page.getByRole('region', { name: 'Compare versions' });
      // At first the newest against the one before: green → black is version 1 to 2, not shown.
      await compare.getByRole('heading', { name: 'From version 2 to version 3' }).waitFor();
      await compare
        .getByLabel('From version')
        .selectOption({ label: `Version 1 (revision ${teaRevisions[0]})` });
      await compare.getByRole('heading', { name: 'From version 1 to version 3' }).waitFor();
      const diff = compare.locator('.diff');
      expect(await diff.locator('del').allTextContents()).toEqual([
        '[deleted: green]',
        '[deleted: over coffee ]',
      ]);
      expect(await diff.locator('ins').allTextContents()).toEqual([
        '[inserted: black]',
        '[inserted: late ]',
        '[inserted: , with milk]',
      ]);
      // In reading order: each change in place, named in words (the names are visually hidden).
      expect(await diff.textContent()).toBe(
        'Alice prefers [deleted: green][inserted: black] tea [deleted: over coffee ]in the [inserted: late ]afternoon[inserted: , with milk].',
      );
      expect(await compare.textContent()).toContain('Text: 3 words deleted, 4 words inserted.');
      const rows = compare.getByRole('table', { name: 'Other fields that changed' }).locator('tbody tr');
      expect(await rows.allTextContents()).toEqual([
        'Kindnotepreference',
        'Tagsnonetea',
        'Pinnednoyes',
        'Metadatanone{"source":"chat"}',
      ]);
      await expectAccessible(tab.page, 'entry comparison');
      // Version 1 against version 2: one word replaced, no other field.
      await compare
        .getByLabel('To version')
        .selectOption({ label: `Version 2 (revision ${teaRevisions[1]})` });
      await compare.getByText('No other field changed.').waitFor();
      expect(await diff.locator('del').allTextContents()).toEqual(['[deleted: green]']);
      expect(await diff.locator('ins').allTextContents()).toEqual(['[inserted: black]']);
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  it('links a version of the history to its revision on the Changes page, and a change back to the entry at that version', async () => {
    const tab = await openTab(WRITER);
    try {
      await go(tab.page, `#/scope/alpha/entry/${tea}`, 'Entry history');
      const versions = tab.page.getByRole('list', { name: 'Versions, newest first' });
      const revision = teaRevisions[1]!;
      await versions.getByRole('link', { name: `Revision ${revision} on the Changes page` }).click();
      await tab.page.getByRole('heading', { name: 'Changes in alpha', level: 1 }).waitFor();
      expect(new URL(tab.page.url()).hash).toBe(`#/scope/alpha/changes/${revision - 1}/${revision}`);
      expect(await tab.page.getByLabel('After revision').inputValue()).toBe(String(revision - 1));
      expect(await tab.page.getByLabel('Up to revision').inputValue()).toBe(String(revision));
      const changes = tab.page.getByRole('list', { name: 'Changes' }).getByRole('listitem');
      await expect.poll(() => changes.count()).toBe(1);
      expect(await changes.first().textContent()).toContain(`Revision ${revision}: revise`);
      expect(await changes.first().textContent()).toContain(V2);
      await expectAccessible(tab.page, 'changes at one revision');

      await changes
        .first()
        .getByRole('link', { name: `Entry ${tea.slice(0, 8)} at version 2` })
        .click();
      await tab.page.getByRole('heading', { name: 'Entry history', level: 1 }).waitFor();
      expect(new URL(tab.page.url()).hash).toBe(`#/scope/alpha/entry/${tea}/version/2`);
      // The version linked to is marked, in words, has the focus, and is compared with the one before.
      const marked = versions.locator('li[aria-current="true"]');
      await marked.waitFor();
      expect(await marked.getByRole('heading').textContent()).toBe(
        `Version 2: revise at revision ${revision} (the version linked to)`,
      );
      await expect
        .poll(() => tab.page.evaluate(() => document.activeElement?.textContent))
        .toBe(`Version 2: revise at revision ${revision} (the version linked to)`);
      await tab.page
        .getByRole('region', { name: 'Compare versions' })
        .getByRole('heading', { name: 'From version 1 to version 2' })
        .waitFor();
      await expectAccessible(tab.page, 'entry at a version');
      // The form moves the address with it, so a reload keeps the range.
      await go(tab.page, '#/scope/alpha/changes', 'Changes in alpha');
      await tab.page.getByLabel('After revision').fill('1');
      await tab.page.getByLabel('Up to revision').fill('2');
      await tab.page.getByRole('button', { name: 'Show changes' }).click();
      await expect.poll(() => new URL(tab.page.url()).hash).toBe('#/scope/alpha/changes/1/2');
      await tab.page.reload();
      await tab.page.getByRole('heading', { name: 'Changes in alpha', level: 1 }).waitFor();
      expect(await tab.page.getByLabel('Up to revision').inputValue()).toBe('2');
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  it('offers purge only to a key with the permission, enables it only once the entry id is typed, then erases the entry', async () => {
    const writer = await openTab(WRITER);
    try {
      await go(writer.page, `#/scope/alpha/entry/${victim}`, 'Entry history');
      await writer.page.getByRole('region', { name: 'Change this entry' }).waitFor();
      expect(await writer.page.getByRole('region', { name: 'Purge this entry' }).count()).toBe(0);
      expect(await writer.page.getByRole('button', { name: /Purge/u }).count()).toBe(0);
    } finally {
      await writer.close();
    }

    const tab = await openTab(PURGER);
    try {
      await go(tab.page, `#/scope/alpha/entry/${victim}`, 'Entry history');
      const section = tab.page.getByRole('region', { name: 'Purge this entry' });
      const purge = section.getByRole('button', { name: 'Purge this entry for good' });
      const field = section.getByLabel(`Type ${victim.slice(0, 8)} to confirm`);
      expect(await purge.isDisabled()).toBe(true);
      await expectAccessible(tab.page, 'entry with purge');
      await field.fill(victim.slice(0, 7));
      expect(await purge.isDisabled()).toBe(true);
      await field.fill(`${victim.slice(0, 8)}x`);
      expect(await purge.isDisabled()).toBe(true);
      // Nothing was sent while the word did not match.
      expect((await attempt('/v1/memory/entries/get', { scope_id: 'alpha', entry_id: victim })).status).toBe(
        200,
      );
      await field.fill(victim.slice(0, 8));
      expect(await purge.isDisabled()).toBe(false);
      await purge.click();
      await tab.page.getByRole('heading', { name: 'Entry purged', level: 1 }).waitFor();
      const main = tab.page.locator('main');
      expect(await main.locator('.alert.ok').textContent()).toMatch(
        /^Purged: revision \d+ erased 1 version of the entry\.$/u,
      );
      expect(await main.getByRole('list', { name: 'Erased versions' }).textContent()).toContain(
        'Version 1: remember at revision 1 (active), text erased',
      );
      await expectAccessible(tab.page, 'entry purged');
      // The API agrees: the entry is gone, at every revision.
      expect(await attempt('/v1/memory/entries/get', { scope_id: 'alpha', entry_id: victim })).toEqual({
        status: 410,
        code: 'entry_purged',
      });
      expect(
        await attempt('/v1/memory/entries/get', { scope_id: 'alpha', entry_id: victim, revision: 1 }),
      ).toEqual({ status: 410, code: 'entry_purged' });
      // The Changes page shows the purge, and the erased version without its text.
      await main.getByRole('link', { name: 'The purge on the Changes page' }).click();
      await tab.page.getByRole('heading', { name: 'Changes in alpha', level: 1 }).waitFor();
      const changes = tab.page.getByRole('list', { name: 'Changes' }).getByRole('listitem');
      await expect.poll(() => changes.count()).toBe(1);
      expect(await changes.first().textContent()).toMatch(/^Revision \d+: purgeThe entry was purged /u);
      await go(tab.page, '#/scope/alpha/changes/0/1', 'Changes in alpha');
      // Revision 1 remembered both entries: the tea entry with its text, the purged one without.
      await expect.poll(() => changes.count()).toBe(2);
      const erased = changes.filter({ hasText: '(erased)' });
      expect(await erased.count()).toBe(1);
      expect(await erased.textContent()).toContain('Revision 1: remember (erased)');
      expect(await erased.textContent()).toContain(victim.slice(0, 8));
      expect(await tab.page.locator('main').textContent()).not.toContain('deploy runbook');
      expect(await changes.filter({ hasText: V1 }).count()).toBe(1);
      await expectAccessible(tab.page, 'changes with a purge');
      // The entry's own page now says, readably, that it was purged.
      await go(tab.page, `#/scope/alpha/entry/${victim}`, 'Entry history');
      const alert = tab.page.getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).toContain('Gone (410): this entry was purged');
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  it('exports a scope: the downloaded file holds exactly the export route’s lines', async () => {
    const tab = await openTab(WRITER);
    try {
      await go(tab.page, '#/scope/exported/overview', 'Scope exported');
      const section = tab.page.getByRole('region', { name: 'Export' });
      // This key may not delete: no deletion is offered.
      expect(await tab.page.getByRole('region', { name: 'Delete this scope' }).count()).toBe(0);
      const [download] = await Promise.all([
        tab.page.waitForEvent('download'),
        section.getByRole('button', { name: 'Download the export' }).click(),
      ]);
      const saved = readFileSync((await download.path())!, 'utf8');
      const route = await fetch(`${stand.server.url}/v1/memory/export?scope_id=exported`, {
        headers: { authorization: `Bearer ${WRITER}` },
      });
      expect(route.status).toBe(200);
      const revision = route.headers.get('memory-revision');
      const expected = await route.text();
      expect(saved.split('\n')).toEqual(expected.split('\n'));
      expect(saved.split('\n').filter(Boolean)).toHaveLength(3);
      expect(download.suggestedFilename()).toBe(`exported-revision-${revision}.jsonl`);
      await section
        .getByText(`Exported 3 entries at revision ${revision} as exported-revision-${revision}.jsonl`)
        .waitFor();
      await expectAccessible(tab.page, 'scope overview after export');
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  it('deletes a scope after its name is typed; then its reads answer 410 scope_purged, said in words', async () => {
    const tab = await openTab(PURGER);
    try {
      await go(tab.page, '#/scope/doomed/overview', 'Scope doomed');
      const section = tab.page.getByRole('region', { name: 'Delete this scope' });
      const remove = section.getByRole('button', { name: 'Delete this scope for good' });
      const field = section.getByLabel('Type doomed to confirm');
      expect(await remove.isDisabled()).toBe(true);
      await expectAccessible(tab.page, 'scope overview with delete');
      await field.fill('doome');
      expect(await remove.isDisabled()).toBe(true);
      await field.fill('alpha');
      expect(await remove.isDisabled()).toBe(true);
      expect((await attempt('/v1/memory/summary', { scope_id: 'doomed' })).status).toBe(200);
      await field.fill('doomed');
      await remove.click();
      const main = tab.page.locator('main');
      await main.getByText(/^Deleted: scope doomed and its 3 entries at revision 1, /u).waitFor();
      const alert = tab.page.getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).toContain(
        'Gone (410): this scope was deleted, and its memory with it',
      );
      expect(await alert.textContent()).toContain('scope_purged');
      expect(await alert.textContent()).toContain('at revision 1 with 3 entries');
      await expectAccessible(tab.page, 'scope deleted');
      // The API agrees, for a read and for a write.
      expect(await attempt('/v1/memory/summary', { scope_id: 'doomed' })).toEqual({
        status: 410,
        code: 'scope_purged',
      });
      expect(
        await attempt('/v1/memory/remember', { scope_id: 'doomed', entries: [{ text: 'again' }] }),
      ).toEqual({ status: 410, code: 'scope_purged' });
      // Its other pages say the same.
      await go(tab.page, '#/scope/doomed/entries', 'Entries of doomed');
      await tab.page.getByRole('alert').getByText('Gone (410): this scope was deleted').waitFor();
      // The other scopes are untouched.
      expect((await attempt('/v1/memory/summary', { scope_id: 'exported' })).status).toBe(200);
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.close();
    }
  });
});
