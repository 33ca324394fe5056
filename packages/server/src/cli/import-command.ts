import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { createProgressBar } from '@powercontext/cli-support';
import type { ImportProgress, ImportRecord, ImportSummary } from '@powercontext/memory-core';
import type { Runtime } from '@powercontext/runtime';
import { rememberRequestSchema } from '../http/schemas/memory-schemas.js';
import { validationIssues } from '../http/validation-issues.js';
import { fromWireRememberEntry, toOptionalArtifactRef } from '../http/wire.js';
import type { ImportArgs } from './import-args.js';
import { printable } from './memory-output.js';

export { checkImportFile, IMPORT_COMMAND, type ImportArgs, parseImportArgs } from './import-args.js';
export { importFailureJson, importFailureText } from './import-failure.js';

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
