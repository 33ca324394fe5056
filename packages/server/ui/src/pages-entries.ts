import { api, type EntryVersion, type EntryWrite } from './api.js';
import { entryLink, failureView, loading, scopeHeader, shortId, stateWord, timestamp } from './common.js';
import { announce, button, facts, field, h, memoryText } from './dom.js';
import type { View } from './view.js';

const PAGE_SIZE = 20;
type StateFilter = 'active' | 'inactive' | 'all';

/** A scope's entries at one revision, page by page; the text filter narrows the page shown. */
export async function renderEntries(view: View, scopeId: string): Promise<void> {
  let state: StateFilter = 'active';
  let filter = '';
  /** Cursors of the pages before the current one (the first page has none). */
  const previous: (string | undefined)[] = [];
  let cursor: string | undefined;
  let revision: number | undefined;
  let page: EntryVersion[] = [];
  let next: string | undefined;

  const results = h('div', { attrs: { 'aria-live': 'polite' } });
  const stateSelect = h(
    'select',
    {
      attrs: { name: 'state' },
      on: {
        change: () => {
          state = stateSelect.value as StateFilter;
          previous.length = 0;
          cursor = undefined;
          revision = undefined;
          void load();
        },
      },
    },
    h('option', { attrs: { value: 'active' } }, 'Active'),
    h('option', { attrs: { value: 'inactive' } }, 'Forgotten'),
    h('option', { attrs: { value: 'all' } }, 'All'),
  ) as HTMLSelectElement;
  const filterInput = h('input', {
    attrs: { type: 'search', name: 'filter' },
    on: {
      input: () => {
        filter = filterInput.value;
        draw();
      },
    },
  }) as HTMLInputElement;

  view.show(
    scopeHeader(scopeId, `Entries of ${scopeId}`, 'entries'),
    h(
      'div',
      { class: 'controls' },
      field('Show', stateSelect),
      field('Filter this page by text', filterInput, 'Case-insensitive; matches text and kind.'),
    ),
    results,
  );

  async function load(): Promise<void> {
    results.replaceChildren(loading('entries'));
    try {
      const answer = await api.list({
        scope_id: scopeId,
        state,
        limit: PAGE_SIZE,
        ...(revision === undefined ? {} : { revision }),
        ...(cursor === undefined ? {} : { cursor }),
      });
      if (!view.current()) return;
      revision ??= answer.memory?.revision;
      page = answer.entries;
      next = answer.next_cursor;
      draw();
    } catch (error) {
      if (view.current()) results.replaceChildren(failureView(error, () => void load()));
    }
  }

  function draw(): void {
    const needle = filter.trim().toLowerCase();
    const shown = needle
      ? page.filter((entry) => `${entry.text}\n${entry.kind}`.toLowerCase().includes(needle))
      : page;
    const pageNumber = previous.length + 1;
    results.replaceChildren(
      h(
        'p',
        { class: 'meta' },
        revision === undefined
          ? 'This scope was never written.'
          : `Read at revision ${revision}. Page ${pageNumber}: ${shown.length} of ${page.length} entries shown.`,
      ),
      shown.length === 0
        ? h('p', null, page.length === 0 ? 'No entries.' : 'No entry on this page matches the filter.')
        : h(
            'ol',
            { class: 'cards', attrs: { 'aria-label': 'Entries' } },
            shown.map((entry) =>
              h(
                'li',
                { class: `card entry ${entry.state}` },
                memoryText(entry.text),
                facts([
                  ['Kind', entry.kind],
                  ['State', stateWord(entry.state)],
                  ['Version', String(entry.version)],
                  ['Written at revision', String(entry.revision)],
                  ['Entry', h('code', null, shortId(entry.entry_id))],
                ]),
                entryLink(scopeId, entry.entry_id),
              ),
            ),
          ),
      h(
        'div',
        { class: 'pager' },
        button(
          'Previous page',
          () => {
            cursor = previous.pop();
            void load();
          },
          { disabled: previous.length === 0 },
        ),
        button(
          'Next page',
          () => {
            previous.push(cursor);
            cursor = next;
            void load();
          },
          { disabled: next === undefined },
        ),
      ),
    );
  }

  await load();
}

/** What made a version, from the one before it. */
function operationOf(version: EntryVersion, before: EntryVersion | undefined): string {
  if (!before) return 'remember';
  if (before.state !== version.state) return version.state === 'inactive' ? 'forget' : 'reactivate';
  return 'revise';
}

const HISTORY_MAX = 100;

/** An entry: its versions newest first, and forget / reactivate / revise with a confirmation each. */
export async function renderEntry(
  view: View,
  scopeId: string,
  entryId: string,
  notice?: string,
): Promise<void> {
  view.show(scopeHeader(scopeId, 'Entry history', undefined), loading('the entry'));
  let versions: EntryVersion[];
  let head: number;
  try {
    const current = await api.get({ scope_id: scopeId, entry_id: entryId });
    head = current.memory.revision;
    versions = [current.entry];
    // Each version was written at its revision, so the one current just before it is the previous one.
    while (versions.length < HISTORY_MAX) {
      const last = versions[versions.length - 1]!;
      if (last.version <= 1 || last.revision <= 1) break;
      const before = await api.get({ scope_id: scopeId, entry_id: entryId, revision: last.revision - 1 });
      if (before.entry.entry_version_id !== last.previous_version_id) break;
      versions.push(before.entry);
    }
  } catch (error) {
    view.show(
      scopeHeader(scopeId, 'Entry history', undefined),
      failureView(error, () => void renderEntry(view, scopeId, entryId)),
    );
    return;
  }
  const latest = versions[0]!;
  const outcome = h(
    'div',
    { attrs: { 'aria-live': 'polite' } },
    notice && h('p', { class: 'alert ok' }, notice),
  );

  const write = async (label: string, run: () => Promise<EntryWrite>) => {
    outcome.replaceChildren(loading(label));
    try {
      const result = await run();
      const words =
        result.status === 'unchanged'
          ? `Nothing to do: the entry already was in that state (head revision ${result.memory.revision}).`
          : `Done: ${label} wrote revision ${result.memory.revision}.`;
      announce(words);
      if (view.current()) await renderEntry(view, scopeId, entryId, words);
    } catch (error) {
      outcome.replaceChildren(failureView(error, () => void write(label, run)));
    }
  };

  /** Shows the question and the two answers; the write runs only on the explicit yes. */
  const confirm = (question: string, yes: string, run: () => void, kind: 'danger' | 'primary') => {
    const panel = h(
      'div',
      { class: 'confirm', attrs: { role: 'group', 'aria-label': 'Confirm' } },
      h('p', null, question),
      button(yes, () => run(), { kind }),
      button('Cancel', () => outcome.replaceChildren()),
    );
    outcome.replaceChildren(panel);
    panel.querySelector('button')?.focus();
  };

  const canWrite = view.session.can('write');
  const editor = h('textarea', { attrs: { name: 'text', rows: 4 } }, latest.text) as HTMLTextAreaElement;
  const actions = canWrite
    ? h(
        'section',
        { class: 'card', attrs: { 'aria-labelledby': 'actions-title' } },
        h('h2', { id: 'actions-title' }, 'Change this entry'),
        latest.state === 'active'
          ? button('Forget…', () =>
              confirm(
                'Forget this entry? Search and context will no longer return it; its history stays and it can be reactivated.',
                'Yes, forget it',
                () => void write('forget', () => api.forget(scopeId, entryId)),
                'danger',
              ),
            )
          : button('Reactivate…', () =>
              confirm(
                'Reactivate this entry? Search and context will return it again.',
                'Yes, reactivate it',
                () => void write('reactivate', () => api.reactivate(scopeId, entryId)),
                'primary',
              ),
            ),
        h(
          'form',
          {
            class: 'revise',
            on: {
              submit: (event) => {
                event.preventDefault();
                const text = editor.value;
                confirm(
                  'Save this text as a new version of the entry?',
                  'Yes, save the new version',
                  () => void write('revise', () => api.revise(scopeId, entryId, text)),
                  'primary',
                );
              },
            },
          },
          field('New text', editor),
          h('button', { class: 'btn', attrs: { type: 'submit' } }, 'Revise…'),
        ),
        outcome,
      )
    : h('p', null, 'Your key has no write permission: this entry can be read, not changed.');

  view.show(
    scopeHeader(scopeId, 'Entry history', undefined),
    h(
      'section',
      { class: 'card', attrs: { 'aria-labelledby': 'current-title' } },
      h('h2', { id: 'current-title' }, `Current version (${stateWord(latest.state)})`),
      memoryText(latest.text),
      facts([
        ['Entry', h('code', null, latest.entry_id)],
        ['Kind', latest.kind],
        ['Head revision', String(head)],
        latest.sources.length > 0 && [
          'Sources',
          latest.sources
            .map((source) => `${source.source_id}${source.locator ? ` (${source.locator})` : ''}`)
            .join(', '),
        ],
        latest.position && ['Position', `${latest.position.source_id} @ ${latest.position.order.join('.')}`],
        Object.keys(latest.metadata).length > 0 && [
          'Metadata',
          h('pre', { class: 'json' }, JSON.stringify(latest.metadata, null, 2)),
        ],
      ]),
    ),
    actions,
    h(
      'section',
      { attrs: { 'aria-labelledby': 'versions-title' } },
      h('h2', { id: 'versions-title' }, `Versions (${versions.length})`),
      h(
        'ol',
        { class: 'cards', attrs: { 'aria-label': 'Versions, newest first' } },
        versions.map((version, index) =>
          h(
            'li',
            { class: `card version ${version.state}` },
            h(
              'h3',
              null,
              `Version ${version.version}: ${operationOf(version, versions[index + 1])} at revision ${version.revision}`,
            ),
            memoryText(version.text),
            facts([
              ['State', stateWord(version.state)],
              ['Kind', version.kind],
              ['Written', timestamp(version.created_at)],
              ['Version id', h('code', null, shortId(version.entry_version_id))],
            ]),
          ),
        ),
      ),
      versions.length >= HISTORY_MAX && h('p', null, `Only the newest ${HISTORY_MAX} versions are shown.`),
    ),
  );
}
