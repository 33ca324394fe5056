// The memory inspector (RFC 0012): a static page of the reference server that reads and changes
// memory only through the public v1 API, with the key the user typed.
import { ApiFailure, api, clearKey, keysRequired, type ScopesView, storedKey } from './api.js';
import { failureView, forbiddenScope, loading, routes } from './common.js';
import { button, h } from './dom.js';
import { renderChanges } from './pages-changes.js';
import { renderContext } from './pages-context.js';
import { renderEntry } from './pages-entries.js';
import { renderEntries } from './pages-entry-list.js';
import { renderKeyForm, renderNotFound, renderScopes } from './pages-home.js';
import { renderOverview } from './pages-scope.js';
import { renderSearch } from './pages-search.js';
import { createView, type Session } from './view.js';

const main = document.getElementById('main')!;
const nav = document.getElementById('nav')!;
let session: Session | undefined;
let generation = 0;

function sessionOf(scopes: ScopesView, keyless: boolean): Session {
  return { scopes, keyless, can: (permission) => scopes.permissions.includes(permission) };
}

/** Reads what the key may do; without a stored key, a keyless (loopback) server answers too. */
async function signIn(): Promise<void> {
  generation += 1;
  main.replaceChildren(loading('your scopes'));
  try {
    // Without a key, ask the page's own server whether one is needed before calling the API, so a
    // visit to a server with keys does not begin with a refused call.
    if (storedKey() === undefined && (await keysRequired())) {
      session = undefined;
      drawNav();
      renderKeyForm(main, signIn);
      return;
    }
    const scopes = await api.scopes();
    session = sessionOf(scopes, storedKey() === undefined);
    drawNav();
    if (location.hash === routes.key()) location.hash = routes.scopes();
    else await route();
  } catch (error) {
    session = undefined;
    drawNav();
    if (error instanceof ApiFailure && error.status === 401) {
      const hadKey = storedKey() !== undefined;
      clearKey();
      renderKeyForm(main, signIn, hadKey ? error : undefined);
    } else {
      main.replaceChildren(
        h('h1', { attrs: { tabindex: -1 } }, 'The inspector cannot start'),
        failureView(error, () => void signIn()),
      );
    }
  }
}

function drawNav(): void {
  nav.replaceChildren(
    h(
      'ul',
      null,
      session && h('li', null, h('a', { href: routes.scopes() }, 'Scopes')),
      session &&
        !session.keyless &&
        h(
          'li',
          null,
          button('Sign out', () => {
            clearKey();
            session = undefined;
            drawNav();
            renderKeyForm(main, signIn);
          }),
        ),
    ),
  );
}

/**
 * `#/`, `#/scope/<scope>[/<page>][?settings]`, `#/scope/<scope>/changes/<from>[/<to>]` and
 * `#/scope/<scope>/entry/<entry id>[/version/<n>]`.
 */
async function route(): Promise<void> {
  if (!session) {
    // Signed out (a wrong key, or signed out): the key form is the only page.
    if (location.hash === routes.key()) renderKeyForm(main, signIn);
    return;
  }
  const mine = ++generation;
  const view = createView(main, session, () => mine === generation);
  // Only `#/...` is a route; any other fragment (the skip link's #main) shows the scopes. What follows
  // a `?` is the page's own settings (the entries page keeps its filters there).
  const address = location.hash.startsWith('#/') ? location.hash.slice(2) : '';
  const [path = '', query = ''] = address.split(/\?(.*)/su);
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  const [first, scopeId, page, entryId] = parts;
  const revisions = parts.slice(3).map(wholeNumber);
  // A scope the key may not use: say so at once, instead of a form that fails only on submit.
  if (first === 'scope' && scopeId !== undefined && !mayUse(session, scopeId)) forbiddenScope(view, scopeId);
  else if (parts.length === 0) await renderScopes(view);
  else if (first === 'key') renderKeyForm(main, signIn);
  else if (
    first === 'scope' &&
    scopeId !== undefined &&
    (parts.length === 2 || (parts.length === 3 && page === 'overview'))
  )
    await renderOverview(view, scopeId);
  else if (first === 'scope' && scopeId !== undefined && parts.length === 3 && page === 'entries')
    await renderEntries(view, scopeId, new URLSearchParams(query));
  else if (first === 'scope' && scopeId !== undefined && parts.length === 3 && page === 'search')
    renderSearch(view, scopeId);
  else if (first === 'scope' && scopeId !== undefined && parts.length === 3 && page === 'context')
    renderContext(view, scopeId);
  else if (
    first === 'scope' &&
    scopeId !== undefined &&
    page === 'changes' &&
    parts.length <= 5 &&
    revisions.every((revision) => revision !== undefined)
  )
    renderChanges(view, scopeId, { from: revisions[0], to: revisions[1] });
  else if (
    first === 'scope' &&
    scopeId !== undefined &&
    page === 'entry' &&
    entryId !== undefined &&
    parts.length === 4
  )
    await renderEntry(view, scopeId, entryId);
  else if (
    first === 'scope' &&
    scopeId !== undefined &&
    page === 'entry' &&
    entryId !== undefined &&
    parts.length === 6 &&
    parts[4] === 'version' &&
    wholeNumber(parts[5]!) !== undefined
  )
    await renderEntry(view, scopeId, entryId, { version: wholeNumber(parts[5]!) });
  else renderNotFound(view);
}

/** A revision or version number of a route: digits only, else undefined. */
function wholeNumber(text: string): number | undefined {
  return /^\d{1,10}$/u.test(text) ? Number(text) : undefined;
}

function mayUse(current: Session, scopeId: string): boolean {
  return current.scopes.any_scope || current.scopes.scopes.includes(scopeId);
}

// The skip link moves focus to the page's content and leaves the address alone: following its #main
// would replace the route, and a reload would land on the scopes.
document.querySelector('a.skip')?.addEventListener('click', (event) => {
  event.preventDefault();
  main.focus();
});

window.addEventListener('hashchange', () => {
  // Only `#/...` and the empty fragment (back to the first page) are routes.
  if (location.hash !== '' && !location.hash.startsWith('#/')) return;
  void route().then(() => {
    // Move focus to the new page's heading, so keyboard and screen-reader users start there.
    const heading = main.querySelector<HTMLElement>('h1');
    if (heading && !main.contains(document.activeElement)) heading.focus();
  });
});

void signIn();
