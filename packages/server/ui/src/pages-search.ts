import { api, type SearchExplain, type SearchHit, type SearchResult } from './api.js';
import { CHANNEL_WORDS, entryLink, failureView, loading, routes, scopeHeader, timestamp } from './common.js';
import { facts, field, h, memoryText } from './dom.js';
import { filterFields } from './filters.js';
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
  const filters = filterFields();
  const results = h('div', { attrs: { 'aria-live': 'polite' } });

  const run = async () => {
    // A filter the page can tell is wrong is marked beside its field, and nothing is sent.
    const filter = filters.read();
    if (filter === false) return;
    results.replaceChildren(loading('hits'));
    try {
      const answer = await api.search({
        scope_id: scopeId,
        query: query.value,
        mode: mode.value,
        limit: limit.valueAsNumber,
        ...(explain.checked ? { explain: 'redacted' as const } : {}),
        ...(filter ? { filter } : {}),
      });
      if (view.current()) {
        results.replaceChildren(...searchResultView(scopeId, answer, query.value, filter !== undefined));
      }
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
      filters.element,
      h('button', { class: 'btn primary', attrs: { type: 'submit' } }, 'Search'),
    ),
    results,
  );
  query.focus();
}

/** What a hit says about its entry (RFC 0014): kind, tags, pinned, when it was written and is about. */
function hitFacts(hit: SearchHit): [string, string][] {
  return [
    ['Kind', hit.kind],
    ['Tags', hit.tags.length === 0 ? 'none' : hit.tags.join(', ')],
    ['Pinned', hit.pinned ? 'yes' : 'no'],
    ['Written', timestamp(hit.written_at)],
    ...(hit.occurred_at === null ? [] : [['Occurred', timestamp(hit.occurred_at)] as [string, string]]),
  ];
}

function searchResultView(
  scopeId: string,
  result: SearchResult,
  query: string,
  filtered: boolean,
): (HTMLElement | string)[] {
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
    result.memory !== null && result.hits.length === 0 ? noHits(scopeId, query, result.mode, filtered) : '',
    explain ? explainSummary(explain) : '',
    result.hits.length === 0
      ? ''
      : h(
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
                [
                  'Found by',
                  hit.matched_by.map((channel) => CHANNEL_WORDS[channel] ?? channel).join(' and '),
                ],
                ...hitFacts(hit),
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

/** A search that found nothing, and what to try instead of reading "0 hits". */
function noHits(scopeId: string, query: string, mode: string, filtered: boolean): HTMLElement {
  return h(
    'div',
    { class: 'card empty' },
    h('p', null, `No entry matched “${query}”${filtered ? ' among the entries the filters keep' : ''}.`),
    filtered && h('p', null, 'Loosen or clear the filters to search more entries.'),
    h(
      'p',
      null,
      mode === 'vector'
        ? 'Try other words, or the mode auto or fts, which match the words entries contain.'
        : 'Search matches the words entries contain: try other words or fewer of them, or ',
      mode !== 'vector' && h('a', { href: routes.scope(scopeId, 'entries') }, 'look through the entries'),
      mode !== 'vector' && '.',
    ),
  );
}

/**
 * The retrieval policy in words. Its id names the family and its settings, e.g.
 * `powercontext.retrieval.rrf.v3(k1=0.8,b=0,...;rrf_k=60;weights=1,0.1;fetch=4x32;lexical_fallback=on)`;
 * the page says what they mean and keeps the id, for a bug report, in a disclosure.
 */
export function policyWords(policyId: string): string {
  const settings = new Map<string, string>();
  for (const part of /\((.*)\)$/u.exec(policyId)?.[1]?.split(';') ?? []) {
    for (const pair of part.split(/,(?=[a-z_]+=)/u)) {
      const [name, value] = pair.split('=');
      if (name && value !== undefined) settings.set(name.trim(), value.trim());
    }
  }
  const words: string[] = [];
  if (policyId.includes('.rrf.')) {
    const k = settings.get('rrf_k');
    words.push(`the channels’ rankings were fused by reciprocal rank${k ? ` (k = ${k})` : ''}`);
  } else words.push('the configured retrieval policy ranked the hits');
  if (settings.get('lexical_fallback') === 'on') {
    words.push('a question no entry matches well still gets the entries that match some of its words');
  }
  return `Ranking: ${words.join('; ')}.`;
}

/** The search as a whole, in words: the mode it ran, any fallback, and what the reranker did. */
function explainSummary(explain: SearchExplain): HTMLElement {
  const lines: string[] = [
    `Asked for mode ${explain.requested_mode}.`,
    policyWords(explain.retrieval_policy_id),
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
    h(
      'details',
      null,
      h('summary', null, 'Retrieval policy id'),
      h('code', { class: 'policy-id' }, explain.retrieval_policy_id),
    ),
  );
}
