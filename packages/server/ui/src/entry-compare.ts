// The entry page's comparison of any two of its versions: the text word by word, with deletions and
// insertions marked by <del> and <ins> (struck through and underlined, and named in words for screen
// readers, never by colour alone), then every other field that changed.
import type { EntryVersion } from './api.js';
import { type Child, field, h, replace } from './dom.js';
import { type DiffPart, diffWords, fieldChanges, tokenize } from './version-diff.js';

/**
 * Two selects (from, to) over `versions` (newest first) and the difference between the two chosen.
 * The first shown is `to` = the version `marked` (else the newest) against the one before it.
 */
export function compareSection(versions: readonly EntryVersion[], marked?: number): HTMLElement {
  const title = h('h2', { id: 'compare-title' }, 'Compare versions');
  if (versions.length < 2) {
    return h(
      'section',
      { class: 'card', attrs: { 'aria-labelledby': 'compare-title' } },
      title,
      h('p', null, 'This entry has one version: there is nothing to compare yet.'),
    );
  }
  const toIndex = Math.max(
    0,
    versions.findIndex((version) => version.version === marked),
  );
  const fromIndex = Math.min(toIndex + 1, versions.length - 1);
  const choose = (name: string, selected: number) =>
    h(
      'select',
      { attrs: { name }, on: { change: () => draw() } },
      versions.map((version, index) =>
        h(
          'option',
          { attrs: { value: index, selected: index === selected } },
          `Version ${version.version} (revision ${version.revision})`,
        ),
      ),
    ) as HTMLSelectElement;
  const from = choose('compare_from', fromIndex);
  const to = choose('compare_to', toIndex);
  const output = h('div', { class: 'compare-output', attrs: { 'aria-live': 'polite' } });

  function draw(): void {
    const before = versions[Number(from.value)]!;
    const after = versions[Number(to.value)]!;
    replace(output, comparison(before, after));
  }
  draw();
  return h(
    'section',
    { class: 'card', attrs: { 'aria-labelledby': 'compare-title' } },
    title,
    h('div', { class: 'controls' }, field('From version', from), field('To version', to)),
    output,
  );
}

function comparison(before: EntryVersion, after: EntryVersion): Child[] {
  const heading = h('h3', null, `From version ${before.version} to version ${after.version}`);
  if (before.version === after.version) return [heading, h('p', null, 'Choose two different versions.')];
  const diff = diffWords(before.text, after.text);
  const words = (op: 'delete' | 'insert') =>
    diff.parts
      .filter((part) => part.op === op)
      .flatMap((part) => tokenize(part.text))
      .filter((token) => /[\p{L}\p{N}]/u.test(token)).length;
  const deleted = words('delete');
  const inserted = words('insert');
  const fields = fieldChanges(before, after);
  return [
    heading,
    h(
      'p',
      { class: 'meta' },
      before.text === after.text
        ? 'The text is the same.'
        : `Text: ${count(deleted, 'word')} deleted, ${count(inserted, 'word')} inserted. Deleted text is struck through, inserted text is underlined.`,
    ),
    !diff.exact &&
      h(
        'p',
        { class: 'hint' },
        'These texts differ too much to compare word by word: the changed part is shown deleted whole, then inserted whole.',
      ),
    before.text !== after.text && h('p', { class: 'memory-text diff' }, diff.parts.map(part)),
    fields.length === 0
      ? h('p', null, 'No other field changed.')
      : h(
          'table',
          { class: 'field-changes' },
          h('caption', null, 'Other fields that changed'),
          h(
            'thead',
            null,
            h(
              'tr',
              null,
              h('th', { attrs: { scope: 'col' } }, 'Field'),
              h('th', { attrs: { scope: 'col' } }, `Version ${before.version}`),
              h('th', { attrs: { scope: 'col' } }, `Version ${after.version}`),
            ),
          ),
          h(
            'tbody',
            null,
            fields.map((change) =>
              h(
                'tr',
                null,
                h('th', { attrs: { scope: 'row' } }, change.field),
                h('td', null, change.before),
                h('td', null, change.after),
              ),
            ),
          ),
        ),
  ];
}

function count(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** One part of the text: equal text as it is; a change in <del> or <ins>, named for screen readers. */
function part(piece: DiffPart): Child {
  if (piece.op === 'equal') return piece.text;
  const tag = piece.op === 'delete' ? 'del' : 'ins';
  const name = piece.op === 'delete' ? 'deleted' : 'inserted';
  // A change of white space only would be invisible: a visible mark stands for it.
  const blank = /^\s+$/u.test(piece.text);
  return h(
    tag,
    null,
    h('span', { class: 'visually-hidden' }, `[${name}${blank ? ' white space' : ''}: `),
    blank
      ? [
          h(
            'span',
            { class: 'blank', attrs: { 'aria-hidden': 'true' } },
            piece.text.replace(/\n/gu, '↵').replace(/\s/gu, '·'),
          ),
          // An insertion keeps its white space too, so new line breaks break the line.
          piece.op === 'insert' ? piece.text : '',
        ]
      : piece.text,
    h('span', { class: 'visually-hidden' }, ']'),
  );
}
