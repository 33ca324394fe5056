import { api, type ChangesPage } from './api.js';
import { entryLink, failureView, loading, scopeHeader, shortId, stateWord } from './common.js';
import { button, facts, field, h, memoryText } from './dom.js';
import type { View } from './view.js';

const PAGE_SIZE = 50;

/** The entry versions written between two revisions, oldest first. */
export function renderChanges(view: View, scopeId: string): void {
  const from = h('input', {
    attrs: { type: 'number', name: 'from_revision', min: 0, step: 1, value: 0, inputmode: 'numeric' },
  }) as HTMLInputElement;
  const to = h('input', {
    attrs: { type: 'number', name: 'to_revision', min: 1, step: 1, inputmode: 'numeric' },
  }) as HTMLInputElement;
  const results = h('div', { attrs: { 'aria-live': 'polite' } });

  const run = async (cursor?: string) => {
    results.replaceChildren(loading('changes'));
    try {
      const answer = await api.changes({
        scope_id: scopeId,
        limit: PAGE_SIZE,
        ...(Number.isFinite(from.valueAsNumber) ? { from_revision: from.valueAsNumber } : {}),
        ...(Number.isFinite(to.valueAsNumber) ? { to_revision: to.valueAsNumber } : {}),
        ...(cursor === undefined ? {} : { cursor }),
      });
      if (view.current()) results.replaceChildren(...changesView(scopeId, answer, run));
    } catch (error) {
      if (view.current()) results.replaceChildren(failureView(error, () => void run(cursor)));
    }
  };

  view.show(
    scopeHeader(scopeId, `Changes in ${scopeId}`, 'changes'),
    h(
      'form',
      {
        class: 'card controls',
        attrs: { 'aria-label': 'Revision range' },
        on: {
          submit: (event) => {
            event.preventDefault();
            void run();
          },
        },
      },
      field('After revision', from, '0 shows everything from the first write.'),
      field('Up to revision', to, 'Empty: the latest.'),
      h('button', { class: 'btn primary', attrs: { type: 'submit' } }, 'Show changes'),
    ),
    results,
  );
  void run();
}

function changesView(
  scopeId: string,
  page: ChangesPage,
  more: (cursor: string) => Promise<void>,
): HTMLElement[] {
  return [
    h(
      'p',
      { class: 'meta' },
      page.memory === null
        ? 'This scope was never written.'
        : `Changes after revision ${page.from_revision} up to ${page.to_revision} (head ${page.memory.revision}).`,
    ),
    page.changes.length === 0
      ? h('p', null, 'No changes in this range.')
      : h(
          'ol',
          { class: 'cards', attrs: { 'aria-label': 'Changes' } },
          page.changes.map((change) =>
            h(
              'li',
              { class: 'card' },
              h('h2', { class: 'hit-title' }, `Revision ${change.revision}: ${change.operation}`),
              memoryText(change.entry.text),
              facts([
                ['Entry', entryLink(scopeId, change.entry.entry_id, shortId(change.entry.entry_id))],
                ['Version', String(change.entry.version)],
                ['State', stateWord(change.entry.state)],
              ]),
            ),
          ),
        ),
    page.next_cursor !== undefined &&
      h(
        'div',
        { class: 'pager' },
        button('More changes', () => void more(page.next_cursor!)),
      ),
  ].filter((node): node is HTMLElement => node instanceof HTMLElement);
}
