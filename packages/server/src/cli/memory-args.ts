import { parseArgs } from 'node:util';
import { ArgsError, argsErrorOfParseArgs } from '@powercontext/cli-support';
import {
  type EntryFilterInput,
  type JsonValue,
  LIST_LIMIT_MAX,
  type ListOrder,
  SEARCH_LIMIT_MAX,
  type SearchModeRequest,
} from '@powercontext/memory-core';
import { checkIdempotencyKey } from './idempotency-flag.js';
import { IMPORT_COMMAND, type ImportArgs, parseImportArgs } from './import-args.js';
import { isStoreFlag, STORE_FLAGS_USAGE, type StoreOverrides } from './runtime-flags.js';
import { type EntryFieldFlags, entryFieldFlags, filterFlag } from './steering-flags.js';

export const MEMORY_SUBCOMMANDS = [
  'remember',
  'search',
  'list',
  'get',
  'revise',
  'forget',
  'reactivate',
  'purge',
  'changes',
  'reembed',
  'import',
  'export',
  'delete-scope',
] as const;
export type MemorySubcommand = (typeof MEMORY_SUBCOMMANDS)[number];

type Metadata = Record<string, JsonValue>;
type EntryStateFilter = 'active' | 'inactive' | 'all';

const MODES: readonly SearchModeRequest[] = ['auto', 'fts', 'vector', 'hybrid'];
const STATES: readonly EntryStateFilter[] = ['active', 'inactive', 'all'];
/** Revisions are PostgreSQL integers. */
const REVISION_MAX = 2_147_483_647;

interface Common {
  json: boolean;
  store: StoreOverrides;
}

export type MemoryArgs =
  | ImportArgs
  | (Common &
      (
        | {
            command: 'remember';
            scope: string;
            texts: string[];
            kind?: string;
            source?: string;
            locator?: string;
            metadata?: Metadata;
            fields: EntryFieldFlags;
            idempotencyKey?: string;
          }
        | {
            command: 'search';
            /** The first of `scopes`. */
            scope: string;
            /** Every `--scope` given, in order: more than one searches them together (issue 29). */
            scopes: string[];
            query: string;
            limit?: number;
            mode?: SearchModeRequest;
            explain: boolean;
            filter?: EntryFilterInput;
          }
        | {
            command: 'list';
            scope: string;
            state?: EntryStateFilter;
            revision?: number;
            cursor?: string;
            limit?: number;
            filter?: EntryFilterInput;
            order?: ListOrder;
          }
        | { command: 'get'; scope: string; entry: string; revision?: number }
        | {
            command: 'revise';
            scope: string;
            entry: string;
            text: string;
            kind?: string;
            metadata?: Metadata;
            fields: EntryFieldFlags;
            idempotencyKey?: string;
          }
        | { command: 'forget'; scope: string; entry: string; idempotencyKey?: string }
        | { command: 'reactivate'; scope: string; entry: string; idempotencyKey?: string }
        | { command: 'purge'; scope: string; entry: string; idempotencyKey?: string }
        | {
            command: 'changes';
            scope: string;
            fromRevision?: number;
            toRevision?: number;
            cursor?: string;
            limit?: number;
          }
        | { command: 'reembed'; scope?: string }
        | { command: 'export'; scope: string; revision?: number }
        | { command: 'delete-scope'; scope: string }
      ));

/** Help to print instead of running: exit 0 when asked for, 2 when a command was missing. */
export interface MemoryHelp {
  help: string;
  exitCode: 0 | 2;
}

/** A bad argument, with the usage to print under it (the subcommand's own when there is one). */
export class MemoryArgsError extends ArgsError {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
  }
}

type FlagKind = 'string' | 'strings' | 'boolean';

interface CommandSpec {
  synopsis: string;
  /** What the command does: lower case, no final period; may run over several lines. */
  about: string;
}

/** The commands parsed here with node:util parseArgs (import has its own parser). */
type FlagCommand = Exclude<MemorySubcommand, 'import'>;

const COMMANDS: Record<FlagCommand, CommandSpec & { flags: Record<string, FlagKind> }> = {
  remember: {
    synopsis:
      '--scope S --text T [--text T ...] [--kind K] [--source ID [--locator L]] [--metadata JSON]\n    [--tag T ...] [--pinned] [--occurred-at RFC3339] [--idempotency-key K]',
    about:
      'store entries, one per --text (kind, source, metadata, tags, pinned and occurred-at apply to each)',
    flags: {
      scope: 'string',
      text: 'strings',
      kind: 'string',
      source: 'string',
      locator: 'string',
      metadata: 'string',
      tag: 'strings',
      pinned: 'boolean',
      'occurred-at': 'string',
      'idempotency-key': 'string',
    },
  },
  search: {
    synopsis:
      '--scope S [--scope S ...] --query Q [--limit N] [--mode auto|fts|vector|hybrid] [--filter JSON]\n    [--explain]',
    about:
      'search one scope, or several at once (--scope repeated); --filter keeps matching entries (the API\'s\nfilter object, e.g. {"tags_any":["billing"]}); --explain adds channel ranks per hit, the rerank\noutcome and any fallback',
    flags: {
      scope: 'string',
      query: 'string',
      limit: 'string',
      mode: 'string',
      filter: 'string',
      explain: 'boolean',
    },
  },
  list: {
    synopsis:
      '--scope S [--state active|inactive|all] [--revision N] [--limit N] [--cursor C] [--filter JSON]\n    [--order entry_id|newest|oldest]',
    about: 'list entries at one revision, page by page, with the total that match',
    flags: {
      scope: 'string',
      state: 'string',
      revision: 'string',
      limit: 'string',
      cursor: 'string',
      filter: 'string',
      order: 'string',
    },
  },
  get: {
    synopsis: '--scope S --entry ID [--revision N]',
    about: 'read one entry',
    flags: { scope: 'string', entry: 'string', revision: 'string' },
  },
  revise: {
    synopsis:
      '--scope S --entry ID --text T [--kind K] [--metadata JSON] [--tag T ...] [--pinned|--unpin]\n    [--occurred-at RFC3339] [--idempotency-key K]',
    about: 'write a new version of an entry (--tag replaces the tags; absent flags keep the values)',
    flags: {
      scope: 'string',
      entry: 'string',
      text: 'string',
      kind: 'string',
      metadata: 'string',
      tag: 'strings',
      pinned: 'boolean',
      unpin: 'boolean',
      'occurred-at': 'string',
      'idempotency-key': 'string',
    },
  },
  forget: {
    synopsis: '--scope S --entry ID [--idempotency-key K]',
    about: 'make an entry inactive (its text stays in history: every version remains readable)',
    flags: { scope: 'string', entry: 'string', 'idempotency-key': 'string' },
  },
  reactivate: {
    synopsis: '--scope S --entry ID [--idempotency-key K]',
    about: 'make a forgotten entry active again',
    flags: { scope: 'string', entry: 'string', 'idempotency-key': 'string' },
  },
  purge: {
    synopsis: '--scope S --entry ID --yes [--idempotency-key K]',
    about:
      'erase every version of an entry for good (text, metadata, index) at every revision, keeping a\ntombstone; cannot be undone, so --yes is required',
    flags: { scope: 'string', entry: 'string', yes: 'boolean', 'idempotency-key': 'string' },
  },
  changes: {
    synopsis: '--scope S [--from-revision N] [--to-revision N] [--limit N] [--cursor C]',
    about: 'list the writes after --from-revision (default 0) up to --to-revision (default the latest)',
    flags: {
      scope: 'string',
      'from-revision': 'string',
      'to-revision': 'string',
      limit: 'string',
      cursor: 'string',
    },
  },
  export: {
    synopsis: '--scope S [--revision N] > FILE.jsonl',
    about:
      'write the active entries at a revision (default the head) to stdout as JSON Lines, the format\n"memory import" reads; a progress bar on stderr when it is a terminal',
    flags: { scope: 'string', revision: 'string' },
  },
  'delete-scope': {
    synopsis: '--scope S --yes',
    about:
      'delete the whole scope for good: every entry erased at every revision, a tombstone kept; its\nreads and writes then fail with scope_purged; cannot be undone, so --yes is required',
    flags: { scope: 'string', yes: 'boolean' },
  },
  reembed: {
    synopsis: '[--scope S]',
    about: 'give entries a vector of the configured embedding profile (every scope without --scope)',
    flags: { scope: 'string' },
  },
};

function specOf(name: MemorySubcommand): CommandSpec {
  return name === 'import' ? IMPORT_COMMAND : COMMANDS[name];
}

function indent(text: string, columns: number): string {
  return text
    .split('\n')
    .map((line) => `${' '.repeat(columns)}${line}`)
    .join('\n');
}

const COMMON_OPTIONS = `Options of every command:
  --json                print JSON instead of text
${STORE_FLAGS_USAGE}
  --help                print this help`;

export const MEMORY_USAGE = `Usage: powercontext memory <command> [options]

Reads and writes the Memory of a scope directly through the runtime (no server needed). Output is
for people; add --json for the JSON bodies of the HTTP v1 API. Exit codes: 0 done, 1 the operation
failed (e.g. not_found, database_unavailable), 2 bad arguments or invalid input. The writes
(remember, revise, forget, reactivate, purge, import) take --idempotency-key K: repeated with the same key and
arguments, they answer the first result and write nothing (keys are kept 24 hours by default).

Commands:
${MEMORY_SUBCOMMANDS.map((name) => `  ${name.padEnd(12)} ${specOf(name).synopsis}\n${indent(specOf(name).about, 15)}`).join('\n')}

${COMMON_OPTIONS}

Run "powercontext memory <command> --help" for one command. Configuration: the POWERCONTEXT_SERVER_*
environment of the runtime.`;

/** The help of one subcommand. */
export function memoryCommandUsage(name: MemorySubcommand): string {
  const spec = specOf(name);
  return `Usage: powercontext memory ${name} ${spec.synopsis}

${spec.about[0]!.toUpperCase()}${spec.about.slice(1)}.

${COMMON_OPTIONS}`;
}

/** parseArgs' option table of a subcommand: its own flags, --json, the store flags and --help. */
function optionsOf(name: FlagCommand) {
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = {
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
    'database-url': { type: 'string' },
    'data-dir': { type: 'string' },
  };
  for (const [flag, kind] of Object.entries(COMMANDS[name].flags)) {
    options[flag] = kind === 'boolean' ? { type: 'boolean' } : { type: 'string', multiple: true };
  }
  return options;
}

/** node:util parseArgs' errors in our words (cli-support's), saying which command and how flags are written. */
function argsErrorOf(error: unknown, name: FlagCommand, usage: string): MemoryArgsError {
  const { message } = argsErrorOfParseArgs(error);
  switch ((error as { code?: unknown }).code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return new MemoryArgsError(`${message} for "memory ${name}"`, usage);
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return new MemoryArgsError(`${message} (flags take the form --name value)`, usage);
    default:
      return new MemoryArgsError(message, usage);
  }
}

/**
 * Parses `memory <command> [flags]` with node:util parseArgs (strict: an unknown flag, a missing value
 * or a stray argument is an error), then checks every value (types, choices and ranges) before any
 * store is opened. Throws MemoryArgsError naming the flag and the rule.
 */
export function parseMemoryArgs(argv: readonly string[]): MemoryArgs | MemoryHelp {
  const [command, ...rest] = argv[0] === '--' ? argv.slice(1) : argv;
  if (command === undefined) return { help: MEMORY_USAGE, exitCode: 2 };
  if (command === '--help' || command === '-h' || command === 'help')
    return { help: MEMORY_USAGE, exitCode: 0 };
  if (!(MEMORY_SUBCOMMANDS as readonly string[]).includes(command)) {
    throw new MemoryArgsError(`unknown command "memory ${command}"`, MEMORY_USAGE);
  }
  const name = command as MemorySubcommand;
  const usage = memoryCommandUsage(name);
  // import takes a FILE besides flags: its own small parser (import-args.ts).
  if (name === 'import') {
    const parsed = withUsage(usage, () => parseImportArgs(rest));
    return parsed === 'help' ? { help: usage, exitCode: 0 } : parsed;
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...rest], options: optionsOf(name), strict: true, allowPositionals: false });
  } catch (error) {
    throw argsErrorOf(error, name, usage);
  }
  const given = parsed.values as Record<string, string | boolean | string[] | undefined>;
  if (given.help) return { help: usage, exitCode: 0 };
  return withUsage(usage, () => toMemoryArgs(name, given));
}

/** Runs `parse`, giving an ArgsError it throws the usage to print under it. */
function withUsage<T>(usage: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof ArgsError && !(error instanceof MemoryArgsError)) {
      throw new MemoryArgsError(error.message, usage);
    }
    throw error;
  }
}

function toMemoryArgs(
  name: FlagCommand,
  given: Record<string, string | boolean | string[] | undefined>,
): MemoryArgs {
  const values = new Map<string, string[]>();
  const store: StoreOverrides = {};
  for (const [key, value] of Object.entries(given)) {
    if (value === undefined || key === 'json' || key === 'help') continue;
    const flag = `--${key}`;
    if (isStoreFlag(flag)) {
      if (typeof value === 'string') store[flag] = value;
      continue;
    }
    values.set(flag, Array.isArray(value) ? value : value === true ? [''] : []);
  }
  const read = new FlagValues(values);
  const common = { json: given.json === true, store };
  switch (name) {
    case 'remember':
      if (values.has('--locator') && !values.has('--source')) {
        throw new ArgsError('--locator needs --source (it is a position inside that source)');
      }
      return {
        ...common,
        command: name,
        scope: read.required('--scope'),
        texts: read.all('--text', 'is required (once per entry)'),
        ...read.optional('--kind', 'kind'),
        ...read.optional('--source', 'source'),
        ...read.optional('--locator', 'locator'),
        ...read.metadata(),
        fields: entryFieldFlags(values),
        ...read.idempotencyKey(),
      };
    case 'search': {
      const scopes = read.all('--scope', 'is required (repeat it to search several scopes at once)');
      return {
        ...common,
        command: name,
        scope: scopes[0]!,
        scopes,
        query: read.required('--query'),
        ...read.integer('--limit', 'limit', 1, SEARCH_LIMIT_MAX),
        ...read.oneOf('--mode', 'mode', MODES),
        ...filterFlag(values),
        explain: values.has('--explain'),
      };
    }
    case 'list':
      return {
        ...common,
        command: name,
        scope: read.required('--scope'),
        ...read.oneOf('--state', 'state', STATES),
        ...read.integer('--revision', 'revision', 1, REVISION_MAX),
        ...read.integer('--limit', 'limit', 1, LIST_LIMIT_MAX),
        ...read.optional('--cursor', 'cursor'),
        ...filterFlag(values),
        ...read.oneOf('--order', 'order', ORDERS),
      };
    case 'get':
      return {
        ...common,
        command: name,
        scope: read.required('--scope'),
        entry: read.required('--entry'),
        ...read.integer('--revision', 'revision', 1, REVISION_MAX),
      };
    case 'revise':
      return {
        ...common,
        command: name,
        scope: read.required('--scope'),
        entry: read.required('--entry'),
        text: read.required('--text'),
        ...read.optional('--kind', 'kind'),
        ...read.metadata(),
        fields: entryFieldFlags(values),
        ...read.idempotencyKey(),
      };
    case 'forget':
    case 'reactivate':
      return {
        ...common,
        command: name,
        scope: read.required('--scope'),
        entry: read.required('--entry'),
        ...read.idempotencyKey(),
      };
    case 'purge': {
      const args = {
        ...common,
        command: name,
        scope: read.required('--scope'),
        entry: read.required('--entry'),
        ...read.idempotencyKey(),
      };
      if (!values.has('--yes')) throw new ArgsError('--yes is required: a purge erases the entry for good');
      return args;
    }
    case 'export':
      return {
        ...common,
        command: name,
        scope: read.required('--scope'),
        ...read.integer('--revision', 'revision', 1, REVISION_MAX),
      };
    case 'delete-scope': {
      const args = { ...common, command: name, scope: read.required('--scope') };
      if (!values.has('--yes')) throw new ArgsError('--yes is required: deleting a scope erases it for good');
      return args;
    }
    case 'changes':
      return {
        ...common,
        command: name,
        scope: read.required('--scope'),
        ...read.integer('--from-revision', 'fromRevision', 0, REVISION_MAX),
        ...read.integer('--to-revision', 'toRevision', 1, REVISION_MAX),
        ...read.integer('--limit', 'limit', 1, LIST_LIMIT_MAX),
        ...read.optional('--cursor', 'cursor'),
      };
    case 'reembed':
      return { ...common, command: name, ...read.optional('--scope', 'scope') };
  }
}

const ORDERS: readonly ListOrder[] = ['entry_id', 'newest', 'oldest'];

function fail(message: string): never {
  throw new ArgsError(message);
}

class FlagValues {
  constructor(private readonly values: Map<string, string[]>) {}

  #single(flag: string): string | undefined {
    const given = this.values.get(flag);
    if (given && given.length > 1) throw new ArgsError(`${flag} may be given once`);
    return given?.[0];
  }

  required(flag: string): string {
    return this.#single(flag) ?? fail(`${flag} is required`);
  }

  all(flag: string, rule: string): string[] {
    const given = this.values.get(flag);
    return given && given.length > 0 ? given : fail(`${flag} ${rule}`);
  }

  optional<Key extends string>(flag: string, key: Key): { [K in Key]?: string } {
    const value = this.#single(flag);
    return (value === undefined ? {} : { [key]: value }) as { [K in Key]?: string };
  }

  oneOf<Key extends string, Value extends string>(
    flag: string,
    key: Key,
    allowed: readonly Value[],
  ): { [K in Key]?: Value } {
    const value = this.#single(flag);
    if (value === undefined) return {};
    if (!(allowed as readonly string[]).includes(value)) {
      throw new ArgsError(`${flag} must be one of ${allowed.join(', ')}, got "${value}"`);
    }
    return { [key]: value } as { [K in Key]?: Value };
  }

  /** A whole number in [min, max], checked here so a bad one never opens the store. */
  integer<Key extends string>(flag: string, key: Key, min: number, max: number): { [K in Key]?: number } {
    const value = this.#single(flag);
    if (value === undefined) return {};
    if (!/^-?\d+$/.test(value)) throw new ArgsError(`${flag} must be an integer, got "${value}"`);
    const number = Number(value);
    if (number < min || number > max) {
      throw new ArgsError(`${flag} must be an integer from ${min} to ${max}, got ${value}`);
    }
    return { [key]: number } as { [K in Key]?: number };
  }

  idempotencyKey(): { idempotencyKey?: string } {
    const value = this.#single('--idempotency-key');
    return value === undefined ? {} : { idempotencyKey: checkIdempotencyKey(value) };
  }

  metadata(): { metadata?: Metadata } {
    const value = this.#single('--metadata');
    if (value === undefined) return {};
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new ArgsError('--metadata must be a JSON object, got invalid JSON');
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new ArgsError('--metadata must be a JSON object');
    }
    // JSON.parse yields JSON values only; the memory service checks the size and the text rules.
    return { metadata: parsed as Metadata };
  }
}
