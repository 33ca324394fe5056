import type { buildRedactedExplain } from '../http/explain.js';
import type {
  toArtifactRef,
  toChange,
  toEntryVersion,
  toPurgedEntryMarker,
  toPurgeTombstone,
  toSearchHit,
} from '../http/wire.js';
import { WIRE_CHANNELS } from '../http/wire-channels.js';

type ArtifactRef = ReturnType<typeof toArtifactRef>;
type WireEntry = ReturnType<typeof toEntryVersion>;
type WireHit = ReturnType<typeof toSearchHit>;
type WireChange = ReturnType<typeof toChange>;
type WirePurgedEntry = ReturnType<typeof toPurgedEntryMarker>;
type Explain = ReturnType<typeof buildRedactedExplain>;

// Control characters (C0, DEL, C1) and the bidirectional controls that can reorder what a terminal
// shows. Stored text is untrusted: it is printed with these escaped, never interpreted.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/** Text made safe for a terminal; `oneLine` also escapes line breaks and tabs and shortens it. */
export function printable(text: string, options: { oneLine?: boolean; max?: number } = {}): string {
  const escaped = (char: string) => `\\u{${char.codePointAt(0)!.toString(16)}}`;
  let safe = text.replace(UNSAFE, escaped);
  if (options.oneLine) safe = safe.replace(/\n/g, '\\n').replace(/\t/g, '\\t');
  const max = options.max;
  if (max !== undefined && safe.length > max) safe = `${safe.slice(0, max - 1)}…`;
  return safe;
}

const count = (value: number) => value.toLocaleString('en-US');
const quote = (value: string) => `"${printable(value, { oneLine: true })}"`;
const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

export function rememberText(
  scopeId: string,
  body: { memory: ArtifactRef; entries: { entry_id: string; status: string }[] },
): string {
  const stored = body.entries.filter((entry) => entry.status === 'created').length;
  const lines = [
    `Stored ${plural(stored, 'new entry', 'new entries')} of ${body.entries.length} in scope ${quote(scopeId)} (revision ${body.memory.revision})`,
    ...body.entries.map((entry) => `  ${entry.status.padEnd(9)}  ${entry.entry_id}`),
  ];
  return lines.join('\n');
}

export function searchText(
  scopeIds: readonly string[],
  body: {
    memory: ArtifactRef | null;
    scopes?: { scope_id: string; memory: ArtifactRef | null }[];
    mode: string;
    hits: WireHit[];
  },
  explain?: Explain,
): string {
  const at = (memory: ArtifactRef | null) => (memory ? `at revision ${memory.revision}` : '(never written)');
  const where = body.scopes
    ? `in scopes ${body.scopes.map((scope) => `${quote(scope.scope_id)} ${at(scope.memory)}`).join(', ')}`
    : `in scope ${quote(scopeIds[0]!)} ${at(body.memory)}`;
  const lines = [`${plural(body.hits.length, 'hit')} ${where}, mode ${body.mode}`];
  body.hits.forEach((hit, index) => {
    const scope = body.scopes ? `  scope ${quote(hit.scope_id)}` : '';
    lines.push(
      '',
      `${index + 1}. ${hit.citation.entry_id}${scope}  score ${hit.score.toFixed(4)}  matched by ${hit.matched_by.join('+')}`,
      `   ${printable(hit.text, { oneLine: true, max: 240 })}`,
    );
    const detail = explain?.hits[index];
    if (detail) lines.push(`   ${explainHitText(detail)}`);
  });
  if (explain) lines.push('', ...explainSummaryText(explain));
  return lines.join('\n');
}

function explainHitText(detail: Explain['hits'][number]): string {
  const channels = WIRE_CHANNELS.filter((channel) => detail.channel_ranks[channel] !== undefined).map(
    (channel) => {
      const contribution = detail.rrf_contributions?.[channel];
      const rrf = contribution === undefined ? '' : ` (rrf ${contribution.toFixed(4)})`;
      return `${channel} #${detail.channel_ranks[channel]}${rrf}`;
    },
  );
  const parts = [`coarse #${detail.coarse_rank}`, ...channels];
  const authority = detail.authority;
  if (authority) {
    const reasons = [
      ...(authority.pinned_boost > 0 ? [`pinned +${authority.pinned_boost}`] : []),
      ...(authority.tag === null ? [] : [`tag ${quote(authority.tag)} +${authority.tag_weight}`]),
    ];
    parts.push(
      `authority x${(1 + authority.boost).toFixed(2)} of fused ${authority.fused_score.toFixed(4)}` +
        (reasons.length === 0 ? '' : ` (${reasons.join(', ')})`),
    );
  }
  if (detail.scope_rank !== null) parts.splice(1, 0, `#${detail.scope_rank} in its scope`);
  if (detail.reranker_selected !== null)
    parts.push(detail.reranker_selected ? 'chosen by the reranker' : 'kept in coarse order');
  const lexical = detail.lexical;
  if (lexical) {
    const terms = (list: string[]) => (list.length === 0 ? '-' : list.map((term) => quote(term)).join(' '));
    parts.push(`own words ${terms(lexical.own_terms)}`, `neighbour context ${terms(lexical.context_terms)}`);
  }
  return parts.join(' · ');
}

function explainSummaryText(explain: Explain): string[] {
  const lines = [`retrieval: ${explain.retrieval_policy_id}, requested mode ${explain.requested_mode}`];
  if (explain.lexical_query_terms) {
    const terms = explain.lexical_query_terms.map((term) => quote(term)).join(' ');
    lines.push(`lexical query terms: ${terms === '' ? '(none)' : terms}`);
  }
  if (explain.mode_fallback) {
    const fallback = explain.mode_fallback;
    lines.push(`mode fallback: ${fallback.from} -> ${fallback.to} (${fallback.reason})`);
  }
  if (explain.lexical_fallback) {
    const fallback = explain.lexical_fallback;
    lines.push(
      `lexical fallback: no entry matched enough of the ${fallback.query_term_count} query terms; ${fallback.admitted} matching fewer returned instead`,
    );
  }
  const rerank = explain.rerank;
  lines.push(
    rerank
      ? `rerank: ${rerank.policy_id}, pool of ${rerank.pool_size}, used fallback ${rerank.used_fallback ? 'yes' : 'no'}, ` +
          (rerank.degraded_reason
            ? `degraded (${rerank.degraded_reason}): coarse order returned`
            : 'not degraded')
      : 'rerank: none ran (no reranker configured, or no candidates)',
  );
  const several = explain.multi_scope;
  if (several) {
    const told = {
      reranked: 'the reranker ran on the fused pool',
      skipped: 'the reranker was skipped (POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_MULTI_SCOPE=skip)',
      none: 'no reranker ran',
    }[several.rerank];
    lines.push(`several scopes: ${several.scope_count} fused by RRF; ${told}`);
  }
  return lines;
}

export function listText(
  scopeId: string,
  state: string,
  body: {
    memory: ArtifactRef | null;
    entries: WireEntry[];
    purged?: WirePurgedEntry[];
    next_cursor?: string;
  },
  /** How many there are in all (the list's total), when the page is not all of them. */
  total?: number,
): string {
  const where = body.memory ? `at revision ${body.memory.revision}` : '(never written)';
  // "3 entries (active and inactive)", not "3 all entries".
  const counted =
    state === 'all'
      ? `${plural(body.entries.length, 'entry', 'entries')} (active and inactive)`
      : plural(body.entries.length, `${state} entry`, `${state} entries`);
  const lines = [
    total === undefined
      ? `${counted} in scope ${quote(scopeId)} ${where}`
      : `Showing ${body.entries.length} of ${count(total)} ${state === 'all' ? 'entries (active and inactive)' : `${state} entries`} in scope ${quote(scopeId)} ${where}`,
  ];
  for (const entry of body.entries) {
    lines.push(
      `  ${entry.entry_id}  ${entry.state.padEnd(8)}  v${entry.version}  ${printable(entry.kind, { oneLine: true })}  ${printable(entry.text, { oneLine: true, max: 100 })}`,
    );
  }
  for (const marker of body.purged ?? []) {
    lines.push(
      `  ${marker.entry_id}  ${marker.state.padEnd(8)}  v${marker.version}  (purged at revision ${marker.purge.revision})`,
    );
  }
  if (body.next_cursor !== undefined) lines.push(`next page: --cursor ${body.next_cursor}`);
  return lines.join('\n');
}

export function changesText(
  scopeId: string,
  body: {
    memory: ArtifactRef | null;
    from_revision: number;
    to_revision: number;
    changes: WireChange[];
    next_cursor?: string;
  },
): string {
  const span = body.memory
    ? `after revision ${body.from_revision} up to ${body.to_revision}`
    : '(never written)';
  const lines = [`${plural(body.changes.length, 'change', 'changes')} in scope ${quote(scopeId)} ${span}`];
  for (const change of body.changes) {
    lines.push(
      change.purged === true
        ? `  r${change.revision}  ${change.operation.padEnd(10)}  ${change.entry_id}  v${change.version}  (purged at revision ${change.purge.revision})`
        : `  r${change.revision}  ${change.operation.padEnd(10)}  ${change.entry.entry_id}  v${change.entry.version}  ${printable(change.entry.text, { oneLine: true, max: 100 })}`,
    );
  }
  if (body.next_cursor !== undefined) lines.push(`next page: --cursor ${body.next_cursor}`);
  return lines.join('\n');
}

export function entryText(body: { memory: ArtifactRef; entry: WireEntry }): string {
  const { entry } = body;
  const sources = entry.sources.map((source) =>
    printable(source.locator === undefined ? source.source_id : `${source.source_id} @ ${source.locator}`, {
      oneLine: true,
    }),
  );
  return [
    `entry      ${entry.entry_id}`,
    `version    ${entry.version} (${entry.entry_version_id}${entry.previous_version_id ? `, previous ${entry.previous_version_id}` : ''})`,
    `state      ${entry.state}`,
    `kind       ${printable(entry.kind, { oneLine: true })}`,
    `written at revision ${entry.revision}, read at revision ${body.memory.revision}, created ${entry.created_at}`,
    ...(sources.length > 0 ? [`sources    ${sources.join(', ')}`] : []),
    ...(Object.keys(entry.metadata).length > 0
      ? [`metadata   ${printable(JSON.stringify(entry.metadata))}`]
      : []),
    '',
    printable(entry.text),
  ].join('\n');
}

export function entryWriteText(
  action: 'revise' | 'forget' | 'reactivate',
  body: { memory: ArtifactRef; entry_id: string; entry_version_id: string; status: string },
): string {
  if (body.status === 'unchanged') {
    const what = {
      forget: 'was already forgotten',
      reactivate: 'is already active',
      revise: 'already has this content',
    }[action];
    return `Entry ${body.entry_id} ${what}; nothing written (revision ${body.memory.revision})`;
  }
  const done = { forget: 'Forgot', reactivate: 'Reactivated', revise: 'Revised' }[action];
  return `${done} entry ${body.entry_id} (version ${body.entry_version_id}, revision ${body.memory.revision})`;
}

export function purgeText(body: {
  memory: ArtifactRef;
  status: string;
  tombstone: ReturnType<typeof toPurgeTombstone>;
}): string {
  const { tombstone } = body;
  if (body.status === 'unchanged') {
    return `Entry ${tombstone.entry_id} was already purged at revision ${tombstone.revision}; nothing written (revision ${body.memory.revision})`;
  }
  return `Purged entry ${tombstone.entry_id}: ${plural(tombstone.versions.length, 'version')} erased at every revision (revision ${body.memory.revision}, tombstone ${tombstone.entry_version_id})`;
}

export function reembedText(profile: string, counts: { scope_id: string; reembedded: number }[]): string {
  const total = counts.reduce((sum, item) => sum + item.reembedded, 0);
  return [
    ...counts
      .filter((item) => item.reembedded > 0)
      .map((item) => `${quote(item.scope_id)}: ${plural(item.reembedded, 'entry', 'entries')}`),
    `${plural(total, 'entry', 'entries')} re-embedded for ${profile} in ${plural(counts.length, 'scope')}`,
  ].join('\n');
}
