import { ArgsError, readFlags } from '@powercontext/cli-support';
import type { JsonValue, SearchModeRequest } from '@powercontext/memory-core';
import { IMPORT_USAGE_LINE, type ImportArgs, parseImportArgs } from './import-command.js';
import { isStoreFlag, STORE_FLAGS_USAGE, type StoreOverrides } from './runtime-flags.js';

export const MEMORY_SUBCOMMANDS = [
  'remember',
  'search',
  'list',
  'get',
  'revise',
  'forget',
  'reembed',
  'import',
] as const;
export type MemorySubcommand = (typeof MEMORY_SUBCOMMANDS)[number];

type Metadata = Record<string, JsonValue>;
type EntryStateFilter = 'active' | 'inactive' | 'all';

const MODES: readonly SearchModeRequest[] = ['auto', 'fts', 'vector', 'hybrid'];
const STATES: readonly EntryStateFilter[] = ['active', 'inactive', 'all'];

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
          }
        | {
            command: 'search';
            scope: string;
            query: string;
            limit?: number;
            mode?: SearchModeRequest;
            explain: boolean;
          }
        | {
            command: 'list';
            scope: string;
            state?: EntryStateFilter;
            revision?: number;
            cursor?: string;
            limit?: number;
          }
        | { command: 'get'; scope: string; entry: string; revision?: number }
        | {
            command: 'revise';
            scope: string;
            entry: string;
            text: string;
            kind?: string;
            metadata?: Metadata;
          }
        | { command: 'forget'; scope: string; entry: string }
        | { command: 'reembed'; scope?: string }
      ));

export const MEMORY_USAGE = `Usage: powercontext memory <command> [options]

Reads and writes the Memory of a scope directly through the runtime (no server needed). Output is
for people; add --json for the JSON bodies of the HTTP v1 API. Exit codes: 0 done, 1 the operation
failed (e.g. not_found, database_unavailable), 2 bad arguments or invalid input.

Commands:
  remember --scope S --text T [--text T ...] [--kind K] [--source ID [--locator L]] [--metadata JSON]
                          store entries, one per --text (kind, source and metadata apply to each)
  search   --scope S --query Q [--limit N] [--mode auto|fts|vector|hybrid] [--explain]
                          search; --explain adds channel ranks per hit and the rerank outcome
  list     --scope S [--state active|inactive|all] [--revision N] [--limit N] [--cursor C]
  get      --scope S --entry ID [--revision N]
  revise   --scope S --entry ID --text T [--kind K] [--metadata JSON]
  forget   --scope S --entry ID
  reembed  [--scope S]    give entries a vector of the configured embedding profile (every scope
                          without --scope)
${IMPORT_USAGE_LINE}

Options of every command:
  --json                print JSON instead of text
${STORE_FLAGS_USAGE}
  --help                print this help

Configuration: the POWERCONTEXT_SERVER_* environment of the runtime.`;

/** Flags each command accepts, besides --json and the store flags. */
const COMMAND_FLAGS: Record<Exclude<MemorySubcommand, 'import'>, readonly string[]> = {
  remember: ['--scope', '--text', '--kind', '--source', '--locator', '--metadata'],
  search: ['--scope', '--query', '--limit', '--mode', '--explain'],
  list: ['--scope', '--state', '--revision', '--limit', '--cursor'],
  get: ['--scope', '--entry', '--revision'],
  revise: ['--scope', '--entry', '--text', '--kind', '--metadata'],
  forget: ['--scope', '--entry'],
  reembed: ['--scope'],
};

const BOOLEAN_FLAGS = new Set(['--json', '--explain']);

/** Parses `memory <command> [flags]`; throws ArgsError naming the flag and the rule. */
export function parseMemoryArgs(argv: readonly string[]): MemoryArgs | 'help' {
  const [command, ...rest] = argv[0] === '--' ? argv.slice(1) : argv;
  if (command === undefined || command === '--help' || command === '-h') return 'help';
  if (!(MEMORY_SUBCOMMANDS as readonly string[]).includes(command)) {
    throw new ArgsError(`unknown command "memory ${command}"`);
  }
  // import takes a FILE besides flags: its own small parser (import-command.ts).
  if (command === 'import') return parseImportArgs(rest);
  const name = command as Exclude<MemorySubcommand, 'import'>;
  const flags = readFlags(rest, BOOLEAN_FLAGS);
  if (flags === 'help') return 'help';

  const values = new Map<string, string[]>();
  const store: StoreOverrides = {};
  let json = false;
  for (const { flag, value } of flags) {
    if (flag === '--json') json = true;
    else if (isStoreFlag(flag)) store[flag] = value;
    else if (COMMAND_FLAGS[name].includes(flag)) values.set(flag, [...(values.get(flag) ?? []), value]);
    else throw new ArgsError(`unknown flag ${flag} for "memory ${name}"`);
  }
  const read = new FlagValues(values);
  const common = { json, store };
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
      };
    case 'search':
      return {
        ...common,
        command: name,
        scope: read.required('--scope'),
        query: read.required('--query'),
        ...read.integer('--limit', 'limit'),
        ...read.oneOf('--mode', 'mode', MODES),
        explain: values.has('--explain'),
      };
    case 'list':
      return {
        ...common,
        command: name,
        scope: read.required('--scope'),
        ...read.oneOf('--state', 'state', STATES),
        ...read.integer('--revision', 'revision'),
        ...read.integer('--limit', 'limit'),
        ...read.optional('--cursor', 'cursor'),
      };
    case 'get':
      return {
        ...common,
        command: name,
        scope: read.required('--scope'),
        entry: read.required('--entry'),
        ...read.integer('--revision', 'revision'),
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
      };
    case 'forget':
      return { ...common, command: name, scope: read.required('--scope'), entry: read.required('--entry') };
    case 'reembed':
      return { ...common, command: name, ...read.optional('--scope', 'scope') };
  }
}

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

  /** A whole number; its range is the memory service's rule, reported against the flag. */
  integer<Key extends string>(flag: string, key: Key): { [K in Key]?: number } {
    const value = this.#single(flag);
    if (value === undefined) return {};
    if (!/^-?\d+$/.test(value)) throw new ArgsError(`${flag} must be an integer, got "${value}"`);
    return { [key]: Number(value) } as { [K in Key]?: number };
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
