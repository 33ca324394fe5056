// The memory inspector (RFC 0012): a static page of the reference server that reads and changes
// memory only through the public v1 API, with the key the user typed.
import { ApiFailure, api, clearKey, type ScopesView, storedKey } from './api.js';
import { failureView, loading, routes } from './common.js';
import { button, h } from './dom.js';
import { renderChanges } from './pages-changes.js';
import { renderContext } from './pages-context.js';
import { renderEntries, renderEntry } from './pages-entries.js';
import { renderKeyForm, renderNotFound, renderScopes } from './pages-home.js';
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

/** `#/`, `#/scope/<scope>/<page>` and `#/scope/<scope>/entry/<entry id>`. */
async function route(): Promise<void> {
  if (!session) return;
  const mine = ++generation;
  const view = createView(main, session, () => mine === generation);
  // Only `#/...` is a route; any other fragment (the skip link's #main) shows the scopes.
  const path = location.hash.startsWith('#/') ? location.hash.slice(2) : '';
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  const [first, scopeId, page, entryId] = parts;
  if (parts.length === 0) await renderScopes(view);
  else if (first === 'key') renderKeyForm(main, signIn);
  else if (first === 'scope' && scopeId !== undefined && parts.length === 3 && page === 'entries')
    await renderEntries(view, scopeId);
  else if (first === 'scope' && scopeId !== undefined && parts.length === 3 && page === 'search')
    renderSearch(view, scopeId);
  else if (first === 'scope' && scopeId !== undefined && parts.length === 3 && page === 'context')
    renderContext(view, scopeId);
  else if (first === 'scope' && scopeId !== undefined && parts.length === 3 && page === 'changes')
    renderChanges(view, scopeId);
  else if (first === 'scope' && scopeId !== undefined && page === 'entry' && entryId !== undefined)
    await renderEntry(view, scopeId, entryId);
  else renderNotFound(view);
}

window.addEventListener('hashchange', () => {
  // The skip link moves focus to #main by itself; it is not a route.
  if (!location.hash.startsWith('#/')) return;
  void route().then(() => {
    // Move focus to the new page's heading, so keyboard and screen-reader users start there.
    const heading = main.querySelector<HTMLElement>('h1');
    if (heading && !main.contains(document.activeElement)) heading.focus();
  });
});

void signIn();
