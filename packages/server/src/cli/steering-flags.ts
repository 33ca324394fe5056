import { ArgsError } from '@powercontext/cli-support';
import { type EntryFilterInput, entryFilterSchema } from '@powercontext/memory-core';

// The command line loads neither Hono nor the MCP SDK (rfcs/0001, "Start-up"): the filter is checked
// by memory-core's own schema, its fields named as the HTTP API names them.

/** The filter's keys on the wire (snake_case) and in the runtime (camelCase). */
const FILTER_KEYS: Record<string, keyof EntryFilterInput> = {
  kinds: 'kinds',
  tags_all: 'tagsAll',
  tags_any: 'tagsAny',
  source_ids: 'sourceIds',
  metadata: 'metadata',
  pinned: 'pinned',
  occurred_after: 'occurredAfter',
  occurred_before: 'occurredBefore',
  written_after: 'writtenAfter',
  written_before: 'writtenBefore',
};
const WIRE_NAMES = new Map(Object.entries(FILTER_KEYS).map(([wire, runtime]) => [runtime, wire]));

/** What `--tag`, `--pinned`, `--unpin` and `--occurred-at` set on remember and revise (RFC 0014). */
export interface EntryFieldFlags {
  tags?: string[];
  pinned?: boolean;
  occurredAt?: string;
}

/**
 * The entry fields a command line gives: each `--tag` once per tag, `--pinned` (and, on revise,
 * `--unpin`), `--occurred-at` RFC 3339. The memory service checks the rules of each value.
 */
export function entryFieldFlags(values: ReadonlyMap<string, string[]>): EntryFieldFlags {
  if (values.has('--pinned') && values.has('--unpin'))
    throw new ArgsError('--pinned and --unpin exclude each other');
  const occurred = values.get('--occurred-at');
  if (occurred && occurred.length > 1) throw new ArgsError('--occurred-at may be given once');
  return {
    ...(values.has('--tag') ? { tags: values.get('--tag')! } : {}),
    ...(values.has('--pinned') ? { pinned: true } : values.has('--unpin') ? { pinned: false } : {}),
    ...(occurred?.[0] === undefined ? {} : { occurredAt: occurred[0] }),
  };
}

/** `--filter JSON`: the filter of the HTTP API (snake_case), checked by its schema, for the runtime. */
export function filterFlag(values: ReadonlyMap<string, string[]>): { filter?: EntryFilterInput } {
  const given = values.get('--filter');
  if (given === undefined) return {};
  if (given.length > 1) throw new ArgsError('--filter may be given once');
  let parsed: unknown;
  try {
    parsed = JSON.parse(given[0]!);
  } catch {
    throw new ArgsError('--filter must be a JSON object, got invalid JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ArgsError('--filter must be a JSON object');
  }
  const input: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parsed)) {
    const name = FILTER_KEYS[key];
    if (name === undefined) throw new ArgsError(`--filter: filter.${key}: is not a known field`);
    input[name] = value;
  }
  const result = entryFilterSchema.safeParse(input);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const [first, ...rest] = issue.path.map(String);
    const field = ['filter', WIRE_NAMES.get(first as keyof EntryFilterInput) ?? first, ...rest]
      .filter(Boolean)
      .join('.');
    throw new ArgsError(`--filter: ${field}: ${issue.message}`);
  }
  return { filter: input as EntryFilterInput };
}
