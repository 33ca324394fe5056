import { api, type PreparedContext } from './api.js';
import { entryLink, failureView, loading, scopeHeader, shortId } from './common.js';
import { facts, field, h } from './dom.js';
import { filterFields } from './filters.js';
import { modeSelect, numberInput } from './pages-search.js';
import type { View } from './view.js';

const BUDGET = { min: 100, max: 8000, step: 50, initial: 2000 };

/** Prepare context: the framed context under a token budget, and why every other candidate was left out. */
export function renderContext(view: View, scopeId: string): void {
  const query = h('input', { attrs: { type: 'search', name: 'query', required: true } }) as HTMLInputElement;
  const mode = modeSelect();
  const limit = numberInput('limit', 10, 1, 50);
  const budget = h('input', {
    attrs: {
      type: 'range',
      name: 'token_budget',
      min: BUDGET.min,
      max: BUDGET.max,
      step: BUDGET.step,
      value: BUDGET.initial,
      'aria-valuetext': `${BUDGET.initial} tokens`,
    },
  }) as HTMLInputElement;
  const budgetValue = h('output', { attrs: { for: 'budget' } }, `${BUDGET.initial} tokens`);
  budget.id = 'budget';
  budget.addEventListener('input', () => {
    budgetValue.textContent = `${budget.value} tokens`;
    budget.setAttribute('aria-valuetext', `${budget.value} tokens`);
  });
  const filters = filterFields();
  const results = h('div', { attrs: { 'aria-live': 'polite' } });
  let runs = 0;
  let prepared = false;

  // Once a context is shown, a new budget prepares it again: the slider answers without a click on
  // Prepare. `change` fires when the slider is let go (or on each key press), not while dragging.
  budget.addEventListener('change', () => {
    if (prepared && query.value.trim() !== '') void run();
  });

  const run = async () => {
    // A filter the page can tell is wrong is marked beside its field, and nothing is sent.
    const filter = filters.read();
    if (filter === false) return;
    const mine = ++runs;
    results.replaceChildren(loading('the context'));
    try {
      const answer = await api.prepare({
        scope_id: scopeId,
        query: query.value,
        mode: mode.value,
        limit: limit.valueAsNumber,
        contract: { token_budget: budget.valueAsNumber },
        ...(filter ? { filter } : {}),
      });
      if (!view.current() || mine !== runs) return;
      prepared = true;
      results.replaceChildren(...contextView(scopeId, answer));
    } catch (error) {
      if (view.current() && mine === runs) results.replaceChildren(failureView(error, () => void run()));
    }
  };

  view.show(
    scopeHeader(scopeId, `Prepare context from ${scopeId}`, 'context'),
    h(
      'form',
      {
        class: 'card controls',
        attrs: { 'aria-label': 'Prepare context' },
        on: {
          submit: (event) => {
            event.preventDefault();
            void run();
          },
        },
      },
      field('Query', query),
      field('Mode', mode),
      field('Most candidates', limit, '1 to 50 search hits to pack from.'),
      h(
        'div',
        { class: 'field' },
        h('label', { attrs: { for: 'budget' } }, 'Token budget'),
        budget,
        budgetValue,
      ),
      filters.element,
      h('button', { class: 'btn primary', attrs: { type: 'submit' } }, 'Prepare'),
    ),
    results,
  );
  query.focus();
}

function reasonWords(
  omitted: PreparedContext['omitted'][number],
  contract: PreparedContext['contract'],
): string {
  switch (omitted.reason) {
    case 'duplicate_of':
      return `repeats chunk ${omitted.duplicate_of ? shortId(omitted.duplicate_of) : ''} already in the context (${omitted.duplicate_match ?? 'duplicate'}${omitted.similarity === undefined ? '' : `, similarity ${omitted.similarity.toFixed(3)}`})`;
    case 'chunk_limit':
      return `the context already held the most chunks allowed (${contract.max_chunks})`;
    case 'source_cap':
      return `its source already had the most chunks allowed per source (${contract.per_source_cap})`;
    case 'token_budget':
      return `did not fit in what was left of the ${contract.token_budget}-token budget${omitted.tokens === undefined ? '' : ` (needs more than ${omitted.tokens} tokens)`}`;
    case 'not_selected':
      return 'the reranker did not select it';
    default:
      return omitted.reason;
  }
}

function contextView(scopeId: string, prepared: PreparedContext): HTMLElement[] {
  return [
    h(
      'section',
      { class: 'card', attrs: { 'aria-labelledby': 'framed-title' } },
      h('h2', { id: 'framed-title' }, 'Framed context'),
      facts([
        [
          'Tokens',
          `${prepared.total_tokens} of ${prepared.contract.token_budget} (frame alone: ${prepared.frame_tokens})`,
        ],
        ['Tokenizer', prepared.contract.tokenizer],
        ['Chunks', String(prepared.selected.length)],
        ['Mode', prepared.mode],
        ['Ranking', `${prepared.evidence.kind} from ${prepared.evidence.policy_id}`],
        ['Revision', prepared.memory ? String(prepared.memory.revision) : 'never written'],
      ]),
      h(
        'pre',
        { class: 'context', attrs: { tabindex: 0, 'aria-label': 'Framed context text' } },
        prepared.context,
      ),
    ),
    h(
      'section',
      { class: 'card', attrs: { 'aria-labelledby': 'selected-title' } },
      h('h2', { id: 'selected-title' }, `In the context (${prepared.selected.length})`),
      h(
        'ol',
        { class: 'plain' },
        prepared.selected.map((chunk) =>
          h(
            'li',
            null,
            `ref ${chunk.ref}, ${chunk.tokens} tokens, source ${chunk.source} — `,
            entryLink(scopeId, chunk.citation.entry_id, `entry ${shortId(chunk.citation.entry_id)}`),
          ),
        ),
      ),
    ),
    h(
      'section',
      { class: 'card', attrs: { 'aria-labelledby': 'omitted-title' } },
      h('h2', { id: 'omitted-title' }, `Left out (${prepared.omitted.length})`),
      prepared.omitted.length === 0
        ? h('p', null, 'Every candidate fit.')
        : h(
            'ol',
            { class: 'plain omitted' },
            prepared.omitted.map((omitted) =>
              h(
                'li',
                null,
                entryLink(scopeId, omitted.citation.entry_id, `entry ${shortId(omitted.citation.entry_id)}`),
                ` (ref ${omitted.ref}): `,
                h('span', { class: 'reason' }, reasonWords(omitted, prepared.contract)),
              ),
            ),
          ),
    ),
  ];
}
