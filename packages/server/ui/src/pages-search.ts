import { api, type SearchExplain, type SearchResult } from './api.js';
import { CHANNEL_WORDS, entryLink, failureView, loading, scopeHeader } from './common.js';
import { facts, field, h, memoryText } from './dom.js';
import type { View } from './view.js';

export function modeSelect(): HTMLSelectElement {
  return h(
    'select',
    { attrs: { name: 'mode' } },
    h('option', { attrs: { value: 'auto' } }, 'auto'),
    h('option', { attrs: { value: 'fts' } }, 'fts'),
    h('option', { attrs: { value: 'vector' } }, 'vector'),
    h('option', { attrs: { value: 'hybrid' } }, 'hybrid'),
  ) as HTMLSelectElement;
}

export function numberInput(name: string, value: number, min: number, max: number): HTMLInputElement {
  return h('input', {
    attrs: { type: 'number', name, value, min, max, step: 1, inputmode: 'numeric', required: true },
  }) as HTMLInputElement;
}

/** Search a scope: the hits, and with the explain permission, why each one was found. */
export function renderSearch(view: View, scopeId: string): void {
  const query = h('input', { attrs: { type: 'search', name: 'query', required: true } }) as HTMLInputElement;
  const mode = modeSelect();
  const limit = numberInput('limit', 10, 1, 50);
  const mayExplain = view.session.can('explain');
  const explain = h('input', {
    id: 'explain',
    attrs: { type: 'checkbox', name: 'explain', checked: mayExplain, disabled: !mayExplain },
  }) as HTMLInputElement;
  const results = h('div', { attrs: { 'aria-live': 'polite' } });

  const run = async () => {
    results.replaceChildren(loading('hits'));
    try {
      const answer = await api.search({
        scope_id: scopeId,
        query: query.value,
        mode: mode.value,
        limit: limit.valueAsNumber,
        ...(explain.checked ? { explain: 'redacted' as const } : {}),
      });
      if (view.current()) results.replaceChildren(...searchResultView(scopeId, answer));
    } catch (error) {
      if (view.current()) results.replaceChildren(failureView(error, () => void run()));
    }
  };

  view.show(
    scopeHeader(scopeId, `Search ${scopeId}`, 'search'),
    h(
      'form',
      {
        class: 'card controls',
        attrs: { 'aria-label': 'Search' },
        on: {
          submit: (event) => {
            event.preventDefault();
            void run();
          },
        },
      },
      field('Query', query),
      field('Mode', mode, 'auto: hybrid when the vector index is complete, else fts (full-text).'),
      field('Most hits', limit, '1 to 50.'),
      h(
        'div',
        { class: 'field check' },
        explain,
        h('label', { attrs: { for: 'explain' } }, 'Explain why each hit was found'),
        !mayExplain && h('p', { class: 'hint' }, 'Needs the explain permission, which this key lacks.'),
      ),
      h('button', { class: 'btn primary', attrs: { type: 'submit' } }, 'Search'),
    ),
    results,
  );
  query.focus();
}

function searchResultView(scopeId: string, result: SearchResult): (HTMLElement | string)[] {
  const explain = result.explain;
  const byVersion = new Map(explain?.hits.map((hit) => [hit.entry_version_id, hit]));
  return [
    h(
      'p',
      { class: 'meta' },
      result.memory === null
        ? 'This scope was never written.'
        : `${result.hits.length} ${result.hits.length === 1 ? 'hit' : 'hits'} at revision ${result.memory.revision}, mode ${result.mode}.`,
    ),
    explain ? explainSummary(explain) : '',
    h(
      'ol',
      { class: 'cards', attrs: { 'aria-label': 'Hits' } },
      result.hits.map((hit, index) => {
        const why = byVersion.get(hit.citation.entry_version_id);
        return h(
          'li',
          { class: 'card hit' },
          h('h2', { class: 'hit-title' }, `Hit ${index + 1}`),
          memoryText(hit.text),
          facts([
            ['Score', hit.score.toFixed(4)],
            ['Found by', hit.matched_by.map((channel) => CHANNEL_WORDS[channel] ?? channel).join(' and ')],
            why && ['Coarse rank', String(why.coarse_rank)],
            why && [
              'Channel ranks',
              Object.entries(why.channel_ranks)
                .map(([channel, rank]) => `${CHANNEL_WORDS[channel] ?? channel} #${rank}`)
                .join(', ') || 'none',
            ],
            why?.lexical && ['Own words matched', why.lexical.own_terms.join(', ') || 'none'],
            why?.lexical && [
              'Matched only through neighbours',
              why.lexical.context_terms.join(', ') || 'none',
            ],
            why &&
              why.reranker_selected !== null && [
                'Reranker',
                why.reranker_selected ? 'selected it' : 'did not select it',
              ],
          ]),
          entryLink(scopeId, hit.citation.entry_id),
        );
      }),
    ),
  ];
}

const DEGRADED_WORDS: Record<string, string> = {
  timeout: 'the reranker timed out',
  unavailable: 'the reranker was unavailable',
  invalid_output: 'the reranker answered with unusable output',
  saturated: 'the reranker was saturated',
  deadline: 'the rerank deadline passed',
  rerank_failure: 'the reranker failed',
};

/** The search as a whole, in words: the mode it ran, any fallback, and what the reranker did. */
function explainSummary(explain: SearchExplain): HTMLElement {
  const lines: string[] = [
    `Asked for mode ${explain.requested_mode}; retrieval policy ${explain.retrieval_policy_id}.`,
  ];
  if (explain.mode_fallback) {
    lines.push(
      `Fallback: ${explain.mode_fallback.from} was not possible because the query could not be embedded, so the search ran ${explain.mode_fallback.to}.`,
    );
  }
  if (explain.lexical_fallback) {
    const fallback = explain.lexical_fallback;
    lines.push(
      `Fallback: no entry matched enough of the ${fallback.query_term_count} query terms, so instead of nothing the search returned the ${fallback.admitted} best entries that matched fewer.`,
    );
  }
  if (explain.lexical_query_terms) {
    lines.push(
      `Query terms as the full-text index reads them: ${explain.lexical_query_terms.join(', ') || 'none'}.`,
    );
  }
  if (!explain.rerank) lines.push('No reranker ran: hits are in the fused order.');
  else {
    const rerank = explain.rerank;
    lines.push(`Reranked by ${rerank.policy_id} over ${rerank.pool_size} candidates.`);
    if (rerank.used_fallback) lines.push('The reranker gave no usable ranking, so the fused order was kept.');
    if (rerank.degraded_reason) {
      lines.push(
        `Degraded: ${DEGRADED_WORDS[rerank.degraded_reason] ?? rerank.degraded_reason}, so the fused order was returned.`,
      );
    }
  }
  return h(
    'section',
    { class: 'card explain', attrs: { 'aria-label': 'How the search ran' } },
    lines.map((line) => h('p', null, line)),
  );
}
