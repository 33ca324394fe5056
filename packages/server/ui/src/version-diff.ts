// What changed between two versions of an entry: the text word by word, and the other fields one by
// one. Pure functions (no DOM), so the package's unit tests run them directly.

export type DiffOp = 'equal' | 'delete' | 'insert';

export interface DiffPart {
  op: DiffOp;
  text: string;
}

export interface TextDiff {
  /** In order: the `equal` and `delete` parts make the old text, the `equal` and `insert` parts the new. */
  parts: DiffPart[];
  /**
   * False when the changed middle was too long to compare word by word within the bound: it is then
   * one deletion of the old middle and one insertion of the new.
   */
  exact: boolean;
}

/**
 * The most cells of the comparison table (changed old tokens × changed new tokens) a diff may fill:
 * a million 4-byte cells, 4 MB, and at worst some tens of milliseconds (version-diff.bench.ts).
 * The common beginning and end are removed first, so an edit anywhere in a long text stays well
 * under it; only two long, different texts meet it.
 */
export const DIFF_MAX_CELLS = 1_000_000;

/** Words (letters, digits, `_`), runs of white space, and every other character on its own. */
export function tokenize(text: string): string[] {
  return text.match(/[\p{L}\p{N}\p{M}_]+|\s+|[^\p{L}\p{N}\p{M}_\s]/gu) ?? [];
}

/**
 * The word-level difference from `before` to `after`: a longest common subsequence of their tokens,
 * then every run of changes shown as one deletion followed by one insertion. A run that is separated
 * from the next only by white space joins it, so "quick brown" → "slow red" reads as one
 * replacement, not two.
 */
export function diffWords(before: string, after: string, maxCells = DIFF_MAX_CELLS): TextDiff {
  const a = tokenize(before);
  const b = tokenize(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA -= 1;
    endB -= 1;
  }
  const oldMiddle = a.slice(start, endA);
  const newMiddle = b.slice(start, endB);
  const exact = oldMiddle.length * newMiddle.length <= maxCells;
  const middle = exact
    ? lcsParts(oldMiddle, newMiddle)
    : [
        { op: 'delete' as const, text: oldMiddle.join('') },
        { op: 'insert' as const, text: newMiddle.join('') },
      ];
  const parts: DiffPart[] = [
    { op: 'equal', text: a.slice(0, start).join('') },
    ...middle,
    { op: 'equal', text: a.slice(endA).join('') },
  ];
  return { parts: tidy(parts), exact };
}

/** One part per token, from the table of the longest common subsequence of every pair of suffixes. */
function lcsParts(a: readonly string[], b: readonly string[]): DiffPart[] {
  const width = b.length + 1;
  // lengths[i * width + j]: the longest common subsequence of a[i..] and b[j..].
  const lengths = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      lengths[i * width + j] =
        a[i] === b[j]
          ? lengths[(i + 1) * width + j + 1]! + 1
          : Math.max(lengths[(i + 1) * width + j]!, lengths[i * width + j + 1]!);
    }
  }
  const parts: DiffPart[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      parts.push({ op: 'equal', text: a[i]! });
      i += 1;
      j += 1;
    } else if (lengths[(i + 1) * width + j]! >= lengths[i * width + j + 1]!) {
      parts.push({ op: 'delete', text: a[i]! });
      i += 1;
    } else {
      parts.push({ op: 'insert', text: b[j]! });
      j += 1;
    }
  }
  for (; i < a.length; i += 1) parts.push({ op: 'delete', text: a[i]! });
  for (; j < b.length; j += 1) parts.push({ op: 'insert', text: b[j]! });
  return parts;
}

/**
 * Drops empty parts, folds white space that only separates two changes into them, and writes each
 * run of changes as its deleted text, then its inserted text.
 */
function tidy(parts: readonly DiffPart[]): DiffPart[] {
  const kept = parts.filter((part) => part.text !== '');
  const out: DiffPart[] = [];
  let deleted = '';
  let inserted = '';
  const flush = () => {
    if (deleted) out.push({ op: 'delete', text: deleted });
    if (inserted) out.push({ op: 'insert', text: inserted });
    deleted = '';
    inserted = '';
  };
  for (const [index, part] of kept.entries()) {
    const inRun = deleted !== '' || inserted !== '';
    const next = kept[index + 1];
    if (part.op === 'delete') deleted += part.text;
    else if (part.op === 'insert') inserted += part.text;
    else if (inRun && next !== undefined && next.op !== 'equal' && /^\s+$/u.test(part.text)) {
      deleted += part.text;
      inserted += part.text;
    } else {
      flush();
      const last = out[out.length - 1];
      if (last?.op === 'equal') last.text += part.text;
      else out.push({ op: 'equal', text: part.text });
    }
  }
  flush();
  return out;
}

/** The fields of a version other than its text, as the v1 API answers them. */
export interface VersionFields {
  kind: string;
  state: 'active' | 'inactive';
  tags?: readonly string[];
  pinned?: boolean;
  occurred_at?: string | null;
  metadata: Record<string, unknown>;
  sources: readonly { source_id: string; locator?: string }[];
  position: { source_id: string; order: readonly number[] } | null;
}

export interface FieldChange {
  field: string;
  before: string;
  after: string;
}

/** Each field other than the text whose value differs, in words ("none" for an absent value). */
export function fieldChanges(before: VersionFields, after: VersionFields): FieldChange[] {
  const show: [string, (version: VersionFields) => string][] = [
    ['State', (version) => (version.state === 'active' ? 'active' : 'forgotten')],
    ['Kind', (version) => version.kind],
    ['Tags', (version) => (version.tags?.length ? version.tags.join(', ') : 'none')],
    ['Pinned', (version) => (version.pinned ? 'yes' : 'no')],
    ['Occurred at', (version) => version.occurred_at ?? 'none'],
    [
      'Sources',
      (version) =>
        version.sources.length === 0
          ? 'none'
          : version.sources
              .map((source) =>
                source.locator ? `${source.source_id} (${source.locator})` : source.source_id,
              )
              .join(', '),
    ],
    [
      'Position',
      (version) =>
        version.position ? `${version.position.source_id} @ ${version.position.order.join('.')}` : 'none',
    ],
    [
      'Metadata',
      (version) => (Object.keys(version.metadata).length === 0 ? 'none' : canonicalJson(version.metadata)),
    ],
  ];
  const changes: FieldChange[] = [];
  for (const [field, text] of show) {
    const was = text(before);
    const is = text(after);
    if (was !== is) changes.push({ field, before: was, after: is });
  }
  return changes;
}

/** JSON with every object's keys sorted, so equal values always read the same. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  );
}
