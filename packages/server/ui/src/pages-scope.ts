// A scope's overview (`#/scope/<s>`): its head and entry counts, its export (read permission) and its
// deletion (purge permission, typed confirmation), RFC 0015 through the v1 API.
import { api, type ScopeSummary, type ScopeTombstone } from './api.js';
import { failureView, loading, scopeHeader, timestamp } from './common.js';
import { typedConfirmation } from './confirm-typed.js';
import { announce, button, downloadLink, h } from './dom.js';
import { summaryFacts } from './pages-home.js';
import type { View } from './view.js';

/** The last export's object URL, freed when the next one is made or the scope's page is drawn again. */
let lastExport: { revoke(): void } | undefined;

export async function renderOverview(view: View, scopeId: string, notice?: HTMLElement): Promise<void> {
  lastExport?.revoke();
  lastExport = undefined;
  const header = scopeHeader(scopeId, `Scope ${scopeId}`, 'overview');
  view.show(header, notice, loading('the scope'));
  let summary: ScopeSummary;
  try {
    summary = await api.summary(scopeId);
  } catch (error) {
    // A deleted scope answers 410 scope_purged here: the alert says when, and that the name stays taken.
    view.show(
      header,
      notice,
      failureView(error, () => void renderOverview(view, scopeId)),
    );
    return;
  }
  const { session } = view;
  view.show(
    header,
    notice,
    h(
      'section',
      { class: 'card', attrs: { 'aria-labelledby': 'summary-title' } },
      h('h2', { id: 'summary-title' }, 'Summary'),
      summaryFacts(summary),
    ),
    session.can('read') && exportSection(scopeId, summary),
    session.can('purge') && summary.memory !== null && deleteSection(view, scopeId),
  );
}

function exportSection(scopeId: string, summary: ScopeSummary): HTMLElement {
  const outcome = h('div', { attrs: { 'aria-live': 'polite' } });
  const run = async () => {
    outcome.replaceChildren(loading('the export'));
    try {
      const { body, revision } = await api.exportScope(scopeId);
      const lines = (await body.text()).split('\n').filter((line) => line !== '').length;
      const filename = `${scopeId.replace(/[^A-Za-z0-9._-]/gu, '_')}-revision-${revision}.jsonl`;
      lastExport?.revoke();
      const { link, revoke } = downloadLink(body, filename, `Save ${filename} again`);
      lastExport = { revoke };
      const words = `Exported ${lines} ${lines === 1 ? 'entry' : 'entries'} at revision ${revision} as ${filename} (${body.size} bytes).`;
      outcome.replaceChildren(h('p', { class: 'alert ok' }, words, ' ', link));
      announce(words);
      // The browser saves the file as a click on the link would.
      link.click();
    } catch (error) {
      outcome.replaceChildren(failureView(error, () => void run()));
    }
  };
  return h(
    'section',
    { class: 'card', attrs: { 'aria-labelledby': 'export-title' } },
    h('h2', { id: 'export-title' }, 'Export'),
    h(
      'p',
      null,
      summary.memory === null
        ? 'This scope was never written: its export is an empty file.'
        : [
            'Downloads the active entries at the head as JSON Lines, one entry a line, in the format that ',
            h('code', null, 'powercontext memory import'),
            ' reads. Forgotten entries, history and ids are not exported.',
          ],
    ),
    button('Download the export', () => void run(), { kind: 'primary' }),
    outcome,
  );
}

function deleteSection(view: View, scopeId: string): HTMLElement {
  const outcome = h('div', { attrs: { 'aria-live': 'polite' } });
  const confirmation = typedConfirmation({
    word: scopeId,
    hint: 'The scope’s name, exactly. The button stays disabled until it matches.',
    action: 'Delete this scope for good',
    name: 'delete_scope_confirm',
    onConfirm: () => void run(),
  });
  async function run(): Promise<void> {
    outcome.replaceChildren(loading('the deletion'));
    try {
      const { status, tombstone } = await api.deleteScope(scopeId);
      if (!view.current()) return;
      const words = deletedWords(status, tombstone);
      announce(words);
      await renderOverview(
        view,
        scopeId,
        h('div', { class: 'alert ok' }, h('p', { class: 'alert-title' }, words)),
      );
    } catch (error) {
      confirmation.reset();
      outcome.replaceChildren(failureView(error));
    }
  }
  return h(
    'section',
    { class: 'card danger-zone', attrs: { 'aria-labelledby': 'delete-title' } },
    h('h2', { id: 'delete-title' }, 'Delete this scope'),
    h(
      'p',
      null,
      'Deleting erases every entry of the scope at every revision, with its history and search indexes, for good. ',
      'Afterwards every read and write of it answers 410 scope_purged, and the name cannot be used again. Export it first to keep a copy.',
    ),
    confirmation.element,
    outcome,
  );
}

function deletedWords(status: 'deleted' | 'unchanged', tombstone: ScopeTombstone): string {
  const what = `${tombstone.entries} ${tombstone.entries === 1 ? 'entry' : 'entries'} at revision ${tombstone.revision}`;
  return status === 'deleted'
    ? `Deleted: scope ${tombstone.scope_id} and its ${what}, ${timestamp(tombstone.deleted_at)}.`
    : `Nothing to do: scope ${tombstone.scope_id} had been deleted already (${what}, ${timestamp(tombstone.deleted_at)}).`;
}
