import {
  REMEMBER_MAX_ENTRIES,
  type RememberEntryInput,
  rememberEntrySchema,
} from '../domain/memory-entry.js';
import type { MemoryRef } from '../domain/memory-ref.js';
import { type FieldIssue, ValidationError } from '../errors/validation-error.js';

/** One entry to import and where it came from (its line in a file), reported with its errors. */
export interface ImportRecord {
  /** 1-based line (or item) number in the source, as a person would look it up. */
  line: number;
  /** The entry as `remember` takes it; checked before anything of its batch is written. */
  entry: RememberEntryInput | unknown;
  /**
   * Problems the reader found before the entry could be built (e.g. the line is not JSON, or breaks
   * the file format's own shape); the record fails like an entry that breaks a rule.
   */
  issues?: readonly FieldIssue[];
}

export const IMPORT_DEFAULT_BATCH_SIZE = 500;

/** What an import needs of a remember call's answer. */
interface RememberedBatch {
  memory: MemoryRef;
  entries: readonly { status: 'created' | 'duplicate' | 'unchanged' }[];
}

export interface ImportOptions {
  /** Entries per remember call (one revision each), 1..REMEMBER_MAX_ENTRIES; default 500. */
  batchSize?: number;
  /** Called after each stored batch. */
  onProgress?: (progress: ImportProgress) => void;
  /** Stops between batches: the batches stored so far stay stored (a re-run skips them as duplicates). */
  signal?: AbortSignal;
  /**
   * Makes every batch an idempotent remember: batch N (1-based) uses the key `<idempotencyKey>#N`. A
   * re-run with the same key, the same records and the same batch size answers the stored batches with
   * their first results (same revisions, ids and statuses) and writes the rest.
   */
  idempotencyKey?: string;
}

export interface ImportProgress {
  /** Records read and stored (created or found as duplicates) so far. */
  entries: number;
  created: number;
  duplicates: number;
  batches: number;
  /** The last line stored. */
  line: number;
  memory: MemoryRef | undefined;
}

export interface ImportSummary extends ImportProgress {
  seconds: number;
  /** Records per second over the whole import (created and duplicates alike). */
  entriesPerSecond: number;
}

/**
 * A record of an import breaks a rule. `line` says which record; `issues` name the fields of that
 * record (e.g. `text`, `position.order`). Nothing of the record's batch was written; the batches
 * before it were (`stored` says how far the import got).
 */
export class InvalidImportLineError extends ValidationError {
  readonly line: number;
  readonly stored: ImportProgress;

  constructor(line: number, issues: ValidationError['issues'], stored: ImportProgress) {
    super(issues);
    const first = issues[0];
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
    this.message = `Invalid line ${line}: ${first ? `${first.field}: ${first.rule}` : 'invalid entry'}${more}`;
    this.line = line;
    this.stored = stored;
  }
}

/**
 * Imports a stream of entries in batches through `remember`: each batch is checked completely
 * before any of it is written, then stored as one revision. Re-running an import after an
 * interruption stores nothing twice: entries already stored are found as duplicates (same kind and
 * text among the scope's active entries), like any remember.
 */
export async function importEntries(
  /** Stores one batch; `batch` is its 1-based number. */
  remember: (entries: RememberEntryInput[], batch: number) => Promise<RememberedBatch>,
  records: AsyncIterable<ImportRecord> | Iterable<ImportRecord>,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const batchSize = options.batchSize ?? IMPORT_DEFAULT_BATCH_SIZE;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > REMEMBER_MAX_ENTRIES) {
    throw new ValidationError([
      { field: 'batchSize', rule: `batchSize must be an integer within 1..${REMEMBER_MAX_ENTRIES}` },
    ]);
  }
  const started = performance.now();
  const progress: ImportProgress = {
    entries: 0,
    created: 0,
    duplicates: 0,
    batches: 0,
    line: 0,
    memory: undefined,
  };
  let batch: ImportRecord[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    options.signal?.throwIfAborted();
    const entries = batch.map((record) => checkRecord(record, progress));
    const result = await remember(entries, progress.batches + 1);
    for (const entry of result.entries) {
      if (entry.status === 'created') progress.created += 1;
      else progress.duplicates += 1;
    }
    progress.entries += batch.length;
    progress.batches += 1;
    progress.line = batch.at(-1)!.line;
    progress.memory = result.memory;
    batch = [];
    options.onProgress?.({ ...progress });
  };
  for await (const record of records) {
    batch.push(record);
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  const seconds = (performance.now() - started) / 1000;
  return {
    ...progress,
    seconds,
    entriesPerSecond: seconds > 0 ? progress.entries / seconds : 0,
  };
}

/** The record's entry, checked by remember's own rules; a failure names the line and the field. */
function checkRecord(record: ImportRecord, stored: ImportProgress): RememberEntryInput {
  if (record.issues && record.issues.length > 0) {
    throw new InvalidImportLineError(record.line, record.issues, { ...stored });
  }
  const result = rememberEntrySchema.safeParse(record.entry);
  if (result.success) return record.entry as RememberEntryInput;
  throw new InvalidImportLineError(
    record.line,
    result.error.issues.flatMap((issue) => {
      const path = issue.path.map(String);
      if (issue.code === 'unrecognized_keys') {
        return issue.keys.map((key) => ({ field: [...path, key].join('.'), rule: 'is not a known field' }));
      }
      return [{ field: path.join('.') || '(entry)', rule: issue.message }];
    }),
    { ...stored },
  );
}
