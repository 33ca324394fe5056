import { createReadStream } from 'node:fs';
import { access, constants, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { ArgsError, argsErrorOfParseArgs, createProgressBar } from '@powercontext/cli-support';
import {
  type FieldIssue,
  IMPORT_DEFAULT_BATCH_SIZE,
  type ImportProgress,
  type ImportRecord,
  type ImportSummary,
  type InvalidImportLineError,
  REMEMBER_MAX_ENTRIES,
} from '@powercontext/memory-core';
import type { Runtime } from '@powercontext/runtime';
import { rememberRequestSchema } from '../http/schemas/memory-schemas.js';
import { toWireField } from '../http/to-api-error.js';
import { validationIssues } from '../http/validation-issues.js';
import { fromWireRememberEntry, toOptionalArtifactRef } from '../http/wire.js';
import { checkIdempotencyKey } from './idempotency-flag.js';
import { printable } from './memory-output.js';
import { isStoreFlag, STORE_FLAGS, type StoreOverrides } from './runtime-flags.js';

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

const entryWireSchema = rememberRequestSchema.shape.entries.element;

/**
 * The records of a JSON Lines file: one entry a line in the HTTP v1 wire shape (snake_case), blank
 * lines skipped, line numbers counted from 1. A line that is not a JSON object of that shape becomes a
 * record carrying its issues (the import refuses its batch). `onBytes` follows how far the file is read.
 */
export async function* readJsonLines(
  file: string,
  onBytes?: (bytes: number) => void,
): AsyncGenerator<ImportRecord> {
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let line = 0;
  let bytes = 0;
  for await (const raw of lines) {
    line += 1;
    bytes += Buffer.byteLength(raw) + 1;
    onBytes?.(bytes);
    const text = line === 1 ? raw.replace(/^\uFEFF/u, '') : raw;
    if (text.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      yield {
        line,
        entry: undefined,
        issues: [{ field: '(line)', rule: 'must be one JSON object (invalid JSON)' }],
      };
      continue;
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      yield { line, entry: undefined, issues: [{ field: '(line)', rule: 'must be one JSON object' }] };
      continue;
    }
    const wire = entryWireSchema.safeParse(parsed);
    yield wire.success
      ? { line, entry: fromWireRememberEntry(wire.data) }
      : { line, entry: undefined, issues: validationIssues(wire.error) };
  }
}

/** A progress bar on stderr when it is a terminal (bytes of the file read, entries stored, rate, time left); nothing elsewhere. */
function progressDisplay(totalBytes: number, stream: NodeJS.WriteStream = process.stderr) {
  const started = performance.now();
  const bar = createProgressBar('import', totalBytes, stream, { unit: 'bytes' });
  let bytes = 0;
  return {
    onBytes: (read: number) => {
      bytes = read;
    },
    onProgress: (progress: ImportProgress) => {
      const rate = progress.entries / Math.max((performance.now() - started) / 1000, 1e-3);
      bar.update(Math.min(bytes, totalBytes), `${progress.entries} entries, ${Math.round(rate)} entries/s`);
    },
    done: () => bar.stop(),
  };
}

function summaryBody(summary: ImportSummary) {
  return {
    memory: toOptionalArtifactRef(summary.memory),
    entries: summary.entries,
    created: summary.created,
    duplicates: summary.duplicates,
    batches: summary.batches,
    seconds: Math.round(summary.seconds * 1000) / 1000,
    entries_per_second: Math.round(summary.entriesPerSecond * 10) / 10,
  };
}

export async function runImport(
  runtime: Runtime,
  args: ImportArgs,
): Promise<{ json: unknown; text: string }> {
  const display = progressDisplay((await stat(args.file)).size);
  try {
    const summary = await runtime.memory
      .forScope(args.scope)
      .import(readJsonLines(args.file, display.onBytes), {
        batchSize: args.batchSize,
        onProgress: display.onProgress,
        ...(args.idempotencyKey === undefined ? {} : { idempotencyKey: args.idempotencyKey }),
      });
    const body = summaryBody(summary);
    const where = body.memory ? ` (revision ${body.memory.revision})` : '';
    const text =
      `Imported ${body.entries} entries into scope "${printable(args.scope, { oneLine: true })}"${where}: ` +
      `${body.created} new, ${body.duplicates} duplicates, ${body.batches} batches of up to ${args.batchSize}, ` +
      `in ${body.seconds.toFixed(1)} s (${Math.round(body.entries_per_second)} entries/s)`;
    return { json: body, text };
  } finally {
    display.done();
  }
}

/** What to print for a bad line: the line, each field in the file's own (snake_case) names, and how far it got. */
export function importFailureText(error: InvalidImportLineError): string[] {
  const issues: FieldIssue[] = error.issues.map((issue) => ({ ...issue, field: toWireField(issue.field) }));
  const stored = error.stored;
  return [
    ...issues.map((issue) => `line ${error.line}: ${issue.field}: ${issue.rule}`),
    stored.entries === 0
      ? 'Nothing was stored.'
      : `The ${stored.entries} entries up to line ${stored.line} are stored (revision ${stored.memory?.revision}); none of the batch with line ${error.line}. Fix the line and run the same command again: stored entries are skipped as duplicates.`,
  ];
}

export function importFailureJson(error: InvalidImportLineError) {
  return {
    error: {
      code: 'invalid_request',
      message: error.message,
      details: {
        line: error.line,
        issues: error.issues.map((issue) => ({ ...issue, field: toWireField(issue.field) })),
        stored: {
          entries: error.stored.entries,
          line: error.stored.line,
          memory: toOptionalArtifactRef(error.stored.memory),
        },
      },
    },
  };
}
