import { access, constants, stat } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { ArgsError, argsErrorOfParseArgs } from '@powercontext/cli-support';
import { IMPORT_DEFAULT_BATCH_SIZE, REMEMBER_MAX_ENTRIES } from '@powercontext/memory-core';
import { checkIdempotencyKey } from './idempotency-flag.js';
import { isStoreFlag, STORE_FLAGS, type StoreOverrides } from './runtime-flags.js';

// `memory import`'s arguments, apart from the import itself (import-command.ts): they are checked
// before the store and the import's modules load.

export interface ImportArgs {
  command: 'import';
  json: boolean;
  store: StoreOverrides;
  scope: string;
  file: string;
  batchSize: number;
  idempotencyKey?: string;
}

/** `memory import` in the help: its synopsis and what it does (memory-args.ts lays them out). */
export const IMPORT_COMMAND = {
  synopsis: '--scope S FILE.jsonl [--batch-size N] [--idempotency-key K]',
  about: `store a JSON Lines file, one entry a line ({"text", "kind", "sources", "position",
"metadata"} as in POST /v1/memory/remember), in batches of N (default ${IMPORT_DEFAULT_BATCH_SIZE}, at most
${REMEMBER_MAX_ENTRIES}); safe to re-run: stored entries count as duplicates, and with the same
--idempotency-key (and batch size) stored batches answer their first results`,
} as const;

/**
 * `memory import` flags, checked completely before any store is opened: `--scope`, `--batch-size`,
 * `--json`, the store flags, and exactly one FILE (anywhere among them; after `--` it may start with
 * `--`). Kept apart from the other commands' parser so either can be replaced on its own.
 */
export function parseImportArgs(argv: readonly string[]): ImportArgs | 'help' {
  const many = { multiple: true } as const;
  const options: Record<string, { type: 'string' | 'boolean'; multiple: true; short?: string }> = {
    scope: { type: 'string', ...many },
    'batch-size': { type: 'string', ...many },
    'idempotency-key': { type: 'string', ...many },
    json: { type: 'boolean', ...many },
    help: { type: 'boolean', short: 'h', ...many },
  };
  for (const flag of Object.keys(STORE_FLAGS)) options[flag.slice(2)] = { type: 'string', ...many };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: true, tokens: true });
  } catch (error) {
    const refused = argsErrorOfParseArgs(error);
    throw refused.message.startsWith('unknown flag')
      ? new ArgsError(`${refused.message} for "memory import"`)
      : refused;
  }
  const files = parsed.positionals;
  const flags: { flag: string; value: string }[] = [];
  for (const token of parsed.tokens ?? []) {
    if (token.kind !== 'option') continue;
    if (token.name === 'help') return 'help';
    flags.push({ flag: `--${token.name}`, value: token.value ?? '' });
  }
  const args: Partial<ImportArgs> & { store: StoreOverrides } = { store: {}, json: false };
  for (const { flag, value } of flags) {
    if (flag === '--json') args.json = true;
    else if (isStoreFlag(flag)) args.store[flag] = value;
    else if (flag === '--idempotency-key') {
      if (args.idempotencyKey !== undefined) throw new ArgsError(`${flag} may be given once`);
      args.idempotencyKey = checkIdempotencyKey(value);
    } else if (flag === '--scope' || flag === '--batch-size') {
      if ((flag === '--scope' ? args.scope : args.batchSize) !== undefined) {
        throw new ArgsError(`${flag} may be given once`);
      }
      if (flag === '--scope') args.scope = value;
      else {
        if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > REMEMBER_MAX_ENTRIES) {
          throw new ArgsError(
            `--batch-size must be an integer within 1..${REMEMBER_MAX_ENTRIES}, got "${value}"`,
          );
        }
        args.batchSize = Number(value);
      }
    } else throw new ArgsError(`unknown flag ${flag} for "memory import"`);
  }
  if (args.scope === undefined) throw new ArgsError('--scope is required');
  if (files.length !== 1) {
    throw new ArgsError(
      files.length === 0
        ? 'memory import needs a FILE (JSON Lines)'
        : `memory import takes one FILE, got ${files.length}`,
    );
  }
  return {
    command: 'import',
    json: args.json ?? false,
    store: args.store,
    scope: args.scope,
    file: files[0]!,
    batchSize: args.batchSize ?? IMPORT_DEFAULT_BATCH_SIZE,
    ...(args.idempotencyKey === undefined ? {} : { idempotencyKey: args.idempotencyKey }),
  };
}

/** The file must be a readable regular file; checked before the store opens. */
export async function checkImportFile(file: string): Promise<void> {
  try {
    await access(file, constants.R_OK);
    if (!(await stat(file)).isFile()) throw new ArgsError(`${file}: is not a file`);
  } catch (error) {
    if (error instanceof ArgsError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ArgsError(`${file}: cannot be read (${code})`);
  }
}
