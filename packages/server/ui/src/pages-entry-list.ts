// A scope's entries, listed by the server (RFC 0014, "List"): of a state, kept by kind, tags, pinned,
// source and text, newest first unless asked otherwise, 20 a page at one revision, with the total.
import { api, type EntryFilter, type EntryVersion, type ListOrder } from './api.js';
import {
  entryLink,
  failureView,
  loading,
  routes,
  scopeHeader,
  shortId,
  stateWord,
  timestamp,
} from './common.js';
import { button, facts, field, h, memoryText } from './dom.js';
import { checked, checkedField, kindsProblem, listOf, pinnedSelect } from './filters.js';
import type { View } from './view.js';

export const PAGE_SIZE = 20;
/** The most characters of the list's text filter (the API's rule). */
const TEXT_MAX = 200;

type StateFilter = 'active' | 'inactive' | 'all';

/** What the list shows, as the form holds it and the address keeps it (`#/scope/<s>/entries?...`). */
interface ListSettings {
  state: StateFilter;
  order: ListOrder;
  text: string;
  kinds: string;
  tags: string;
  pinned: '' | 'true' | 'false';
  sources: string;
}

const DEFAULTS: ListSettings = {
  state: 'active',
  order: 'newest',
  text: '',
  kinds: '',
  tags: '',
  pinned: '',
  sources: '',
};

const STATES: readonly StateFilter[] = ['active', 'inactive', 'all'];
const ORDERS: readonly ListOrder[] = ['newest', 'oldest', 'entry_id'];

/** The settings an address asks for; a value the form cannot hold is the default. */
function settingsFrom(query: URLSearchParams): ListSettings {
  const pick = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const value = query.get(name);
    return allowed.includes(value as T) ? (value as T) : fallback;
  };
  const value = (name: keyof ListSettings) => query.get(name) ?? '';
  return {
    state: pick('state', STATES, DEFAULTS.state),
    order: pick('order', ORDERS, DEFAULTS.order),
    text: value('text').trim().slice(0, TEXT_MAX),
    kinds: value('kinds'),
    tags: value('tags'),
    pinned: pick('pinned', ['', 'true', 'false'] as const, DEFAULTS.pinned),
    sources: value('sources'),
  };
}

/** The address query of the settings: only what differs from the defaults. */
function queryOf(settings: ListSettings): string {
  const query = new URLSearchParams();
  for (const name of Object.keys(DEFAULTS) as (keyof ListSettings)[]) {
    if (settings[name] !== DEFAULTS[name]) query.set(name, settings[name]);
  }
  return query.toString();
}

/** The filter the settings send; every condition given must hold. */
function filterOf(settings: ListSettings): EntryFilter | undefined {
  const filter: EntryFilter = {};
  const kinds = listOf(settings.kinds);
  if (kinds.length > 0) filter.kinds = kinds;
  const tags = listOf(settings.tags);
  if (tags.length > 0) filter.tags_all = tags;
  const sources = listOf(settings.sources);
  if (sources.length > 0) filter.source_ids = sources;
  if (settings.pinned !== '') filter.pinned = settings.pinned === 'true';
  return Object.keys(filter).length === 0 ? undefined : filter;
}

function select(name: string, options: readonly [string, string][]): HTMLSelectElement {
  return h(
    'select',
    { attrs: { name } },
    options.map(([value, label]) => h('option', { attrs: { value } }, label)),
  ) as HTMLSelectElement;
}

/** A scope's entries at one revision, page by page; every filter is applied by the server. */
export async function renderEntries(
  view: View,
  scopeId: string,
  query: URLSearchParams = new URLSearchParams(),
): Promise<void> {
  let settings = settingsFrom(query);
  /** Cursors of the pages before the current one (the first page has none). */
  const previous: (string | undefined)[] = [];
  let cursor: string | undefined;
  let revision: number | undefined;

  const results = h('div', { attrs: { 'aria-live': 'polite' } });
  const stateSelect = select('state', [
    ['active', 'Active'],
    ['inactive', 'Forgotten'],
    ['all', 'All'],
  ]);
  const orderSelect = select('order', [
    ['newest', 'Newest first'],
    ['oldest', 'Oldest first'],
    ['entry_id', 'By entry id'],
  ]);
  const text = checked(
    h('input', { attrs: { type: 'search', name: 'text', maxlength: TEXT_MAX } }) as HTMLInputElement,
  );
  const kinds = checked(h('input', { attrs: { type: 'text', name: 'kinds' } }) as HTMLInputElement);
  const tags = h('input', { attrs: { type: 'text', name: 'tags' } }) as HTMLInputElement;
  const pinned = pinnedSelect('pinned');
  const sources = h('input', { attrs: { type: 'text', name: 'sources' } }) as HTMLInputElement;

  const fill = () => {
    stateSelect.value = settings.state;
    orderSelect.value = settings.order;
    text.control.value = settings.text;
    kinds.control.value = settings.kinds;
    tags.value = settings.tags;
    pinned.value = settings.pinned;
    sources.value = settings.sources;
  };

  /** Reads the form; on a problem, marks the field and keeps the list as it is. */
  const apply = () => {
    text.clear();
    kinds.clear();
    const problem = kindsProblem(listOf(kinds.control.value));
    if (problem) {
      kinds.refuse(problem);
      kinds.control.focus();
      return;
    }
    settings = {
      state: stateSelect.value as StateFilter,
      order: orderSelect.value as ListOrder,
      text: text.control.value.trim(),
      kinds: listOf(kinds.control.value).join(', '),
      tags: listOf(tags.value).join(', '),
      pinned: pinned.value as ListSettings['pinned'],
      sources: listOf(sources.value).join(', '),
    };
    // The address keeps the filters, so a reload or a shared link shows the same list. Replacing the
    // address fires no hashchange: the page stays, and only the list is read again.
    const search = queryOf(settings);
    history.replaceState(null, '', `${routes.scope(scopeId, 'entries')}${search ? `?${search}` : ''}`);
    previous.length = 0;
    cursor = undefined;
    revision = undefined;
    void load();
  };

  for (const control of [stateSelect, orderSelect, pinned]) control.addEventListener('change', apply);

  const clearFilters = () => {
    settings = { ...DEFAULTS };
    fill();
    apply();
  };

  view.show(
    scopeHeader(scopeId, `Entries of ${scopeId}`, 'entries'),
    h(
      'form',
      {
        class: 'card entry-filters',
        attrs: { 'aria-label': 'Filter entries' },
        on: {
          submit: (event) => {
            event.preventDefault();
            apply();
          },
        },
      },
      h(
        'div',
        { class: 'controls' },
        field('Show', stateSelect),
        field('Order', orderSelect),
        checkedField('Text contains', text, 'Any entry of the scope; case does not matter.'),
      ),
      h(
        'div',
        { class: 'controls' },
        checkedField('Kinds', kinds, 'Comma-separated: any of them.'),
        field('Tags', tags, 'Comma-separated: all of them.'),
        field('Pinned', pinned),
        field('Sources', sources, 'Comma-separated source ids: any of them.'),
      ),
      h(
        'div',
        null,
        h('button', { class: 'btn primary', attrs: { type: 'submit' } }, 'Apply filters'),
        button('Clear filters', clearFilters),
      ),
    ),
    results,
  );
  fill();

  async function load(): Promise<void> {
    results.replaceChildren(loading('entries'));
    const asked = settings;
    const filter = filterOf(asked);
    try {
      const answer = await api.list({
        scope_id: scopeId,
        state: asked.state,
        limit: PAGE_SIZE,
        order: asked.order,
        ...(filter ? { filter } : {}),
        ...(asked.text === '' ? {} : { text: asked.text }),
        ...(revision === undefined ? {} : { revision }),
        ...(cursor === undefined ? {} : { cursor }),
      });
      // A later apply started another read: its answer is the one to show.
      if (!view.current() || asked !== settings) return;
      revision ??= answer.memory?.revision;
      draw(answer.entries, answer.total, answer.next_cursor, filter !== undefined || asked.text !== '');
    } catch (error) {
      if (view.current() && asked === settings) {
        results.replaceChildren(failureView(error, () => void load()));
      }
    }
  }

  function draw(page: EntryVersion[], total: number, next: string | undefined, filtered: boolean): void {
    const pageNumber = previous.length + 1;
    const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
    results.replaceChildren(
      h(
        'p',
        { class: 'meta' },
        revision === undefined
          ? 'This scope was never written.'
          : `Read at revision ${revision}: ${page.length} of ${total} ${total === 1 ? 'entry' : 'entries'}, page ${pageNumber} of ${pages}.`,
      ),
      page.length === 0
        ? h('p', null, filtered ? 'No entry matches these filters.' : 'No entries.')
        : h(
            'ol',
            { class: 'cards', attrs: { 'aria-label': 'Entries' } },
            page.map((entry) => entryCard(scopeId, entry)),
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

function entryCard(scopeId: string, entry: EntryVersion): HTMLElement {
  return h(
    'li',
    { class: `card entry ${entry.state}` },
    memoryText(entry.text),
    facts([
      ['Kind', entry.kind],
      ['State', stateWord(entry.state)],
      ['Tags', entry.tags.length === 0 ? 'none' : entry.tags.join(', ')],
      ['Pinned', entry.pinned ? 'yes' : 'no'],
      ['Written', timestamp(entry.written_at)],
      ['Written at revision', String(entry.revision)],
      entry.occurred_at !== null && ['Occurred', timestamp(entry.occurred_at)],
      entry.sources.length > 0 && ['Sources', entry.sources.map((source) => source.source_id).join(', ')],
      ['Version', String(entry.version)],
      ['Entry', h('code', null, shortId(entry.entry_id))],
    ]),
    entryLink(scopeId, entry.entry_id),
  );
}
