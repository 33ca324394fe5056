// What several pages share: routes, the scope's sub-navigation, how a failure is shown, and the words
// for the API's codes.
import { ApiFailure } from './api.js';
import { button, type Child, h } from './dom.js';
import type { View } from './view.js';

export type ScopePage = 'overview' | 'entries' | 'search' | 'context' | 'changes';

export const routes = {
  scopes: () => '#/',
  key: () => '#/key',
  scope: (scopeId: string, page: ScopePage) => `#/scope/${encodeURIComponent(scopeId)}/${page}`,
  /** An entry's page; with a version, that version is marked in the history and compared with the one before. */
  entry: (scopeId: string, entryId: string, version?: number) =>
    `#/scope/${encodeURIComponent(scopeId)}/entry/${encodeURIComponent(entryId)}${version === undefined ? '' : `/version/${version}`}`,
  /** The changes after revision `from` up to `to` (the latest when absent). */
  changes: (scopeId: string, from: number, to?: number) =>
    `#/scope/${encodeURIComponent(scopeId)}/changes/${from}${to === undefined ? '' : `/${to}`}`,
};

const SCOPE_PAGES: readonly [ScopePage, string][] = [
  ['overview', 'Overview'],
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

/**
 * A failed call in words, as an alert; a retry button when repeating it may help. A 401 offers
 * another key: `anotherKey` when the key form is on the page already, else a link to it.
 */
export function failureView(error: unknown, retry?: () => void, anotherKey?: () => void): HTMLElement {
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
    goneDetails(failure),
    failure.issues.length > 1 &&
      h(
        'ul',
        { class: 'plain', attrs: { 'aria-label': 'What the server refused' } },
        failure.issues.map((issue) => h('li', null, h('code', null, issue.field), `: ${issue.rule}`)),
      ),
    failure.status === 401 &&
      h(
        'p',
        null,
        anotherKey
          ? button('Enter another API key', anotherKey)
          : h('a', { href: routes.key() }, 'Enter another API key'),
      ),
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
    case 410:
      return failure.code === 'scope_purged'
        ? 'Gone (410): this scope was deleted, and its memory with it'
        : failure.code === 'entry_purged'
          ? 'Gone (410): this entry was purged, every version of it erased'
          : 'Gone (410)';
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

/** What a 410 tells of the deletion or the purge, in words. */
function goneDetails(failure: ApiFailure): HTMLElement | undefined {
  if (failure.status !== 410) return undefined;
  const scope = failure.details.scope as
    | { revision?: unknown; entries?: unknown; deleted_at?: unknown; deleted_by?: unknown }
    | undefined;
  if (failure.code === 'scope_purged' && scope && typeof scope.deleted_at === 'string') {
    return h(
      'p',
      null,
      `Deleted ${timestamp(scope.deleted_at)}${typeof scope.deleted_by === 'string' ? ` by ${scope.deleted_by}` : ''}, `,
      `at revision ${String(scope.revision)} with ${String(scope.entries)} ${scope.entries === 1 ? 'entry' : 'entries'}. Every read and write of it answers this; the name cannot be used again.`,
    );
  }
  const purge = failure.details.purge as
    | { revision?: unknown; purged_at?: unknown; purged_by?: unknown }
    | undefined;
  if (failure.code === 'entry_purged' && purge && typeof purge.purged_at === 'string') {
    return h(
      'p',
      null,
      `Purged ${timestamp(purge.purged_at)}${typeof purge.purged_by === 'string' ? ` by ${purge.purged_by}` : ''}, `,
      `at revision ${String(purge.revision)}. Its history keeps the revisions, not the text.`,
    );
  }
  return undefined;
}

/** A scope the key may not use, said before any form: the API would answer 403 scope_forbidden. */
export function forbiddenScope(view: View, scopeId: string): void {
  view.show(
    h('p', { class: 'crumb' }, h('a', { href: routes.scopes() }, 'Scopes'), ' / ', h('span', null, scopeId)),
    h('h1', { attrs: { tabindex: -1 } }, `Scope ${scopeId}`),
    failureView(
      new ApiFailure(403, 'scope_forbidden', `This API key may not use scope ${scopeId}.`, false, undefined),
    ),
    h('p', null, h('a', { href: routes.scopes() }, 'Back to the scopes your key may use')),
  );
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
