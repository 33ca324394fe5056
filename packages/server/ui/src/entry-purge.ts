// Purging an entry from its page (only for a key with the `purge` permission): a typed confirmation,
// then POST /v1/memory/entries/purge, then what was erased, in words.
import { api, type PurgeResult } from './api.js';
import { failureView, loading, routes, scopeHeader, shortId, timestamp } from './common.js';
import { typedConfirmation } from './confirm-typed.js';
import { announce, facts, h } from './dom.js';
import type { View } from './view.js';

export function purgeSection(view: View, scopeId: string, entryId: string): HTMLElement {
  const outcome = h('div', { attrs: { 'aria-live': 'polite' } });
  const word = shortId(entryId);
  const confirmation = typedConfirmation({
    word,
    hint: 'The first 8 characters of the entry id. The button stays disabled until they match.',
    action: 'Purge this entry for good',
    name: 'purge_confirm',
    onConfirm: () => void run(),
  });
  async function run(): Promise<void> {
    outcome.replaceChildren(loading('the purge'));
    try {
      const result = await api.purge(scopeId, entryId);
      if (view.current()) showPurged(view, scopeId, result);
    } catch (error) {
      confirmation.reset();
      outcome.replaceChildren(failureView(error));
    }
  }
  return h(
    'section',
    { class: 'card danger-zone', attrs: { 'aria-labelledby': 'purge-title' } },
    h('h2', { id: 'purge-title' }, 'Purge this entry'),
    h(
      'p',
      null,
      'Purge erases every version of this entry for good: its text, kind, sources, metadata and search indexes, at every revision. ',
      'Unlike forget it cannot be undone; only the revisions stay, without text. Export the scope first if you may need a copy.',
    ),
    confirmation.element,
    outcome,
  );
}

/** The page after a purge: the entry is gone, so it says what the purge erased instead. */
function showPurged(view: View, scopeId: string, result: PurgeResult): void {
  const { tombstone } = result;
  const words =
    result.status === 'purged'
      ? `Purged: revision ${tombstone.revision} erased ${tombstone.versions.length} ${tombstone.versions.length === 1 ? 'version' : 'versions'} of the entry.`
      : `Nothing to do: the entry had been purged already, at revision ${tombstone.revision}.`;
  announce(words);
  view.show(
    scopeHeader(scopeId, 'Entry purged', undefined),
    h('div', { class: 'alert ok' }, h('p', { class: 'alert-title' }, words)),
    facts([
      ['Entry', h('code', null, tombstone.entry_id)],
      ['Purge revision', String(tombstone.revision)],
      ['Purged', timestamp(tombstone.purged_at)],
      tombstone.purged_by !== null && ['Purged by', tombstone.purged_by],
      ['Head revision', String(result.memory.revision)],
    ]),
    h('h2', null, 'Erased versions'),
    h(
      'ul',
      { class: 'plain', attrs: { 'aria-label': 'Erased versions' } },
      tombstone.versions.map((version) =>
        h(
          'li',
          null,
          `Version ${version.version}: ${version.operation} at revision ${version.revision} (${version.state === 'active' ? 'active' : 'forgotten'}), text erased`,
        ),
      ),
    ),
    h(
      'p',
      null,
      h(
        'a',
        { href: routes.changes(scopeId, tombstone.revision - 1, tombstone.revision) },
        'The purge on the Changes page',
      ),
      ' · ',
      h('a', { href: routes.scope(scopeId, 'entries') }, 'Back to the entries'),
    ),
  );
  view.main.querySelector<HTMLElement>('h1')?.focus();
}
