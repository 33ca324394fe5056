import { api, type ChangesPage } from './api.js';
import { failureView, loading, routes, scopeHeader, shortId, stateWord, timestamp } from './common.js';
import { button, facts, field, h, memoryText } from './dom.js';
import type { View } from './view.js';

const PAGE_SIZE = 50;

/**
 * The entry versions written between two revisions, oldest first. The range comes from the address
 * (`#/scope/<s>/changes/<from>[/<to>]`, the links of an entry's history), and the address follows
 * the form, so a reload or a copied link shows the same range.
 */
export function renderChanges(
  view: View,
  scopeId: string,
  range: { from?: number | undefined; to?: number | undefined } = {},
): void {
  const from = h('input', {
    attrs: {
      type: 'number',
      name: 'from_revision',
      min: 0,
      step: 1,
      value: range.from ?? 0,
      inputmode: 'numeric',
    },
  }) as HTMLInputElement;
  const to = h('input', {
    attrs: { type: 'number', name: 'to_revision', min: 1, step: 1, value: range.to, inputmode: 'numeric' },
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
            // The address names the range without a hashchange (which would draw the page again).
            history.replaceState(
              null,
              '',
              routes.changes(
                scopeId,
                Number.isFinite(from.valueAsNumber) ? from.valueAsNumber : 0,
                Number.isFinite(to.valueAsNumber) ? to.valueAsNumber : undefined,
              ),
            );
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
            change.purged
              ? h(
                  'li',
                  { class: 'card purged' },
                  h(
                    'h2',
                    { class: 'hit-title' },
                    `Revision ${change.revision}: ${change.operation}${change.operation === 'purge' ? '' : ' (erased)'}`,
                  ),
                  h(
                    'p',
                    { class: 'meta' },
                    change.operation === 'purge'
                      ? `The entry was purged ${timestamp(change.purge.purged_at)}: every version of it erased.`
                      : `Erased by the purge at revision ${change.purge.revision}: no text is kept.`,
                  ),
                  facts([
                    ['Entry', h('code', null, shortId(change.entry_id))],
                    ['Version', String(change.version)],
                    change.purge.purged_by != null && ['Purged by', change.purge.purged_by],
                  ]),
                )
              : h(
                  'li',
                  { class: 'card' },
                  h('h2', { class: 'hit-title' }, `Revision ${change.revision}: ${change.operation}`),
                  memoryText(change.entry.text),
                  facts([
                    ['Entry', h('code', null, shortId(change.entry.entry_id))],
                    ['Version', String(change.entry.version)],
                    ['State', stateWord(change.entry.state)],
                  ]),
                  h(
                    'a',
                    { href: routes.entry(scopeId, change.entry.entry_id, change.entry.version) },
                    `Entry ${shortId(change.entry.entry_id)} at version ${change.entry.version}`,
                  ),
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
