import { api, type EntryVersion, type EntryWrite } from './api.js';
import { failureView, loading, routes, scopeHeader, shortId, stateWord, timestamp } from './common.js';
import { announce, button, facts, field, h, memoryText } from './dom.js';
import { compareSection } from './entry-compare.js';
import { purgeSection } from './entry-purge.js';
import type { View } from './view.js';

/** What made a version, from the one before it. */
function operationOf(version: EntryVersion, before: EntryVersion | undefined): string {
  if (!before) return 'remember';
  if (before.state !== version.state) return version.state === 'inactive' ? 'forget' : 'reactivate';
  return 'revise';
}

const HISTORY_MAX = 100;

/** What an `unchanged` answer means for each write. */
const UNCHANGED_WORDS: Record<string, string> = {
  forget: 'Nothing to do: the entry was forgotten already',
  reactivate: 'Nothing to do: the entry was active already',
  revise: 'Nothing saved: the text is the same as the current version',
};

/**
 * An entry: its versions newest first, each linked to its revision on the Changes page; a comparison
 * of any two; forget / reactivate / revise with a confirmation each, and purge for a key that may.
 * `version` (from the address) marks that version and compares it with the one before.
 */
export async function renderEntry(
  view: View,
  scopeId: string,
  entryId: string,
  options: { notice?: string; version?: number | undefined } = {},
): Promise<void> {
  const { notice, version: marked } = options;
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
          ? `${UNCHANGED_WORDS[label] ?? 'Nothing to do: the entry already was in that state'} (head revision ${result.memory.revision}).`
          : `Done: ${label} wrote revision ${result.memory.revision}.`;
      announce(words);
      if (view.current()) await renderEntry(view, scopeId, entryId, { notice: words });
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
  const forgotten = latest.state === 'inactive';
  const editor = h('textarea', { attrs: { name: 'text', rows: 4 } }, latest.text) as HTMLTextAreaElement;
  // A text the server would refuse (empty) or that changes nothing is answered here, without a call.
  const editorProblem = h('p', { id: 'revise-problem', class: 'field-error' });
  editorProblem.hidden = true;
  const refuse = (problem: string) => {
    editorProblem.textContent = problem;
    editorProblem.hidden = false;
    editor.setAttribute('aria-invalid', 'true');
    const described = editor.getAttribute('aria-describedby') ?? '';
    if (!described.includes(editorProblem.id)) {
      editor.setAttribute('aria-describedby', `${described} ${editorProblem.id}`.trim());
    }
    editor.focus();
  };
  editor.addEventListener('input', () => {
    editorProblem.hidden = true;
    editor.removeAttribute('aria-invalid');
  });
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
                if (text.trim() === '') return refuse('Write the new text first: an entry cannot be empty.');
                if (text === latest.text) {
                  return refuse('This is the current text: change it to save a new version.');
                }
                confirm(
                  forgotten
                    ? 'Save this text as a new version? The entry stays forgotten until you reactivate it.'
                    : 'Save this text as a new version of the entry?',
                  'Yes, save the new version',
                  () => void write('revise', () => api.revise(scopeId, entryId, text)),
                  'primary',
                );
              },
            },
          },
          field(
            'New text',
            editor,
            forgotten
              ? 'This entry is forgotten: a new version stays forgotten (search and context skip it) until you reactivate it.'
              : undefined,
          ),
          editorProblem,
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
    view.session.can('purge') && purgeSection(view, scopeId, entryId),
    compareSection(versions, marked),
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
            {
              class: `card version ${version.state}${version.version === marked ? ' marked' : ''}`,
              attrs: { 'aria-current': version.version === marked && 'true' },
            },
            h(
              'h3',
              { attrs: { tabindex: -1 } },
              `Version ${version.version}: ${operationOf(version, versions[index + 1])} at revision ${version.revision}`,
              version.version === marked && ' (the version linked to)',
            ),
            memoryText(version.text),
            facts([
              ['State', stateWord(version.state)],
              ['Kind', version.kind],
              ['Written', timestamp(version.created_at)],
              ['Version id', h('code', null, shortId(version.entry_version_id))],
            ]),
            h(
              'a',
              { href: routes.changes(scopeId, version.revision - 1, version.revision) },
              `Revision ${version.revision} on the Changes page`,
            ),
          ),
        ),
      ),
      versions.length >= HISTORY_MAX && h('p', null, `Only the newest ${HISTORY_MAX} versions are shown.`),
    ),
  );
  // A link to one version lands on it: its heading takes the focus (and scrolls into view).
  if (marked !== undefined) view.main.querySelector<HTMLElement>('.version.marked h3')?.focus();
}
