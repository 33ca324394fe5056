import { ApiFailure, api, type ScopeSummary, storeKey } from './api.js';
import { failureView, loading, routes } from './common.js';
import { facts, field, h } from './dom.js';
import type { View } from './view.js';

/** The key form: the key goes to session storage, then GET /v1/scopes checks it. */
export function renderKeyForm(main: HTMLElement, onKey: () => Promise<void>, problem?: unknown): void {
  const input = h('input', {
    attrs: { type: 'password', name: 'key', autocomplete: 'off', spellcheck: 'false', required: true },
  }) as HTMLInputElement;
  const form = h(
    'form',
    {
      class: 'card narrow',
      attrs: { 'aria-labelledby': 'key-title' },
      on: {
        submit: (event) => {
          event.preventDefault();
          const key = input.value.trim();
          if (!key) return;
          storeKey(key);
          void onKey();
        },
      },
    },
    field(
      'API key',
      input,
      'Kept in this tab’s session storage only, and sent to this server in the Authorization header.',
    ),
    h('button', { class: 'btn primary', attrs: { type: 'submit' } }, 'Use this key'),
  );
  main.replaceChildren(
    h('h1', { id: 'key-title', attrs: { tabindex: -1 } }, 'Sign in with an API key'),
    h(
      'p',
      null,
      'The inspector calls the server’s v1 API with your key, so it shows and does exactly what the key may.',
    ),
    problem
      ? failureView(problem, undefined, () => {
          input.value = '';
          input.focus();
        })
      : '',
    form,
  );
  input.focus();
}

/** The scopes the key may use, each with its head revision and entry counts. */
export async function renderScopes(view: View): Promise<void> {
  const { scopes, keyless } = view.session;
  const list = h('ul', { class: 'cards', attrs: { 'aria-label': 'Scopes' } });
  const openForm = scopes.any_scope ? openScopeForm() : '';
  view.show(
    h('h1', { attrs: { tabindex: -1 } }, 'Scopes'),
    h(
      'p',
      null,
      keyless
        ? 'This server runs without API keys (loopback only): every request has full access.'
        : scopes.any_scope
          ? 'Your key may use every scope; these are the scopes that hold memory.'
          : `Your key may use ${scopes.scopes.length === 1 ? 'this scope' : `these ${scopes.scopes.length} scopes`}.`,
      ' Permissions: ',
      scopes.permissions.join(', ') || 'none',
      '.',
    ),
    scopes.scopes.length === 0 ? h('p', null, 'No scope holds memory yet.') : list,
    openForm,
  );
  for (const scopeId of scopes.scopes) {
    const numbers = h('div', null, loading('summary'));
    list.append(
      h(
        'li',
        { class: 'card' },
        h('h2', null, h('a', { href: routes.scope(scopeId, 'entries') }, scopeId)),
        numbers,
      ),
    );
  }
  // One at a time: each summary holds one of the key's in-flight slots while it counts.
  const items = [...list.children];
  for (const [index, scopeId] of scopes.scopes.entries()) {
    if (!view.current()) return;
    const target = items[index]?.lastElementChild;
    if (!target) continue;
    try {
      target.replaceChildren(summaryFacts(await api.summary(scopeId)));
    } catch (error) {
      target.replaceChildren(
        error instanceof ApiFailure && error.status === 403
          ? failureView(error)
          : failureView(error, () => void renderScopes(view)),
      );
    }
  }
}

export function summaryFacts(summary: ScopeSummary): HTMLElement {
  return facts([
    ['Head revision', summary.memory ? String(summary.memory.revision) : 'never written'],
    ['Active entries', String(summary.entries.active)],
    ['Forgotten entries', String(summary.entries.inactive)],
  ]);
}

/** Opening a scope by name: a form under its own heading, set apart from the scope cards. */
function openScopeForm(): HTMLElement {
  const input = h('input', { attrs: { type: 'text', name: 'scope', required: true } }) as HTMLInputElement;
  const form = h(
    'form',
    {
      class: 'open-scope-form',
      attrs: { 'aria-labelledby': 'open-scope-title' },
      on: {
        submit: (event) => {
          event.preventDefault();
          if (input.value.trim()) location.hash = routes.scope(input.value.trim(), 'entries');
        },
      },
    },
    field('Scope name', input, 'Your key may use any scope, including one not written yet.'),
    h('button', { class: 'btn', attrs: { type: 'submit' } }, 'Open'),
  );
  return h(
    'section',
    { class: 'open-scope', attrs: { 'aria-labelledby': 'open-scope-title' } },
    h('h2', { id: 'open-scope-title' }, 'Open another scope by name'),
    form,
  );
}

export function renderNotFound(view: View): void {
  view.show(
    h('h1', { attrs: { tabindex: -1 } }, 'No such page'),
    h('p', null, h('a', { href: routes.scopes() }, 'Back to the scopes')),
  );
}
