// What several pages share: routes, the scope's sub-navigation, how a failure is shown, and the words
// for the API's codes.
import { ApiFailure } from './api.js';
import { button, type Child, h } from './dom.js';

export type ScopePage = 'entries' | 'search' | 'context' | 'changes';

export const routes = {
  scopes: () => '#/',
  key: () => '#/key',
  scope: (scopeId: string, page: ScopePage) => `#/scope/${encodeURIComponent(scopeId)}/${page}`,
  entry: (scopeId: string, entryId: string) =>
    `#/scope/${encodeURIComponent(scopeId)}/entry/${encodeURIComponent(entryId)}`,
};

const SCOPE_PAGES: readonly [ScopePage, string][] = [
  ['entries', 'Entries'],
  ['search', 'Search'],
  ['context', 'Prepare context'],
  ['changes', 'Changes'],
];

/** The page heading (focused after navigation) and the scope's sub-navigation. */
export function scopeHeader(scopeId: string, title: string, current: ScopePage | undefined): HTMLElement[] {
  return [
    h('p', { class: 'crumb' }, h('a', { href: routes.scopes() }, 'Scopes'), ' / ', h('span', null, scopeId)),
    h('h1', { attrs: { tabindex: -1 } }, title),
    h(
      'nav',
      { class: 'tabs', attrs: { 'aria-label': `Scope ${scopeId}` } },
      h(
        'ul',
        null,
        SCOPE_PAGES.map(([page, label]) =>
          h(
            'li',
            null,
            h(
              'a',
              { href: routes.scope(scopeId, page), attrs: { 'aria-current': page === current && 'page' } },
              label,
            ),
          ),
        ),
      ),
    ),
  ];
}

/** A failed call in words, as an alert; a retry button when repeating it may help. */
export function failureView(error: unknown, retry?: () => void): HTMLElement {
  const failure =
    error instanceof ApiFailure
      ? error
      : new ApiFailure(
          0,
          'page_error',
          error instanceof Error ? error.message : String(error),
          false,
          undefined,
        );
  const title = failureTitle(failure);
  return h(
    'div',
    { class: `alert ${failure.status === 409 ? 'warn' : 'error'}`, attrs: { role: 'alert' } },
    h('p', { class: 'alert-title' }, title),
    h('p', null, failure.message, ' ', h('code', null, failure.code)),
    failure.status === 401 && h('p', null, h('a', { href: routes.key() }, 'Enter another API key')),
    retry && (failure.retryable || failure.status === 409) && button('Retry', retry, { kind: 'primary' }),
  );
}

function failureTitle(failure: ApiFailure): string {
  switch (failure.status) {
    case 0:
      return 'The request did not reach the server';
    case 401:
      return 'Not signed in (401): the API key is missing or not valid';
    case 403:
      return 'Forbidden (403): this API key may not do that';
    case 404:
      return 'Not found (404)';
    case 409:
      return failure.code === 'revision_conflict'
        ? 'Conflict (409): the scope changed meanwhile; nothing was written, retry'
        : 'Conflict (409)';
    case 422:
      return 'Invalid input (422)';
    case 429:
      return `Rate limited (429)${failure.retryAfterSeconds ? `: retry in ${failure.retryAfterSeconds} s` : ''}`;
    default:
      return failure.status >= 500
        ? `Server error (${failure.status})`
        : `Request failed (${failure.status})`;
  }
}

export function loading(what: string): HTMLElement {
  return h('p', { class: 'loading', attrs: { 'aria-busy': 'true' } }, `Loading ${what}…`);
}

export function entryLink(
  scopeId: string,
  entryId: string,
  label: Child = 'History and actions',
): HTMLElement {
  return h('a', { href: routes.entry(scopeId, entryId) }, label);
}

export function stateWord(state: 'active' | 'inactive'): string {
  return state === 'active' ? 'active' : 'forgotten';
}

export const CHANNEL_WORDS: Record<string, string> = {
  fts: 'full-text',
  vector: 'vector',
  entity: 'entity',
  graph: 'entity graph',
};

export function shortId(id: string): string {
  return id.slice(0, 8);
}

export function timestamp(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? iso
    : date
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/u, ' UTC');
}
