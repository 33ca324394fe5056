import { createProgressBar } from '@powercontext/cli-support';
import type { Runtime } from '@powercontext/runtime';
import { toExportLine } from '../http/wire.js';
import { printable } from './memory-output.js';

export interface ExportArgs {
  scope: string;
  revision?: number;
}

/** Writes `chunk` to `stream`, waiting until it is taken (a slow pipe holds the export back). */
function write(stream: NodeJS.WritableStream, chunk: string): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(chunk, (error) => (error ? reject(error) : resolve()));
  });
}

/**
 * `memory export`: the scope's active entries at a revision as JSON Lines on stdout, in the format
 * `memory import` reads (RFC 0015), with a progress bar on stderr when it is a terminal. Returns the
 * summary, which the command prints on stderr (stdout holds only the lines).
 */
export async function runExport(
  runtime: Runtime,
  args: ExportArgs,
  out: NodeJS.WritableStream = process.stdout,
  progress: NodeJS.WriteStream = process.stderr,
): Promise<{ json: unknown; text: string }> {
  const handle = await runtime.memory
    .forScope(args.scope)
    .openExport(args.revision === undefined ? {} : { revision: args.revision });
  const bar = createProgressBar('export', Math.max(handle.total, 1), progress, { unit: 'entries' });
  let entries = 0;
  try {
    for await (const page of handle.pages()) {
      await write(out, page.map((version) => `${toExportLine(version)}\n`).join(''));
      entries += page.length;
      bar.update(entries);
    }
  } finally {
    bar.stop();
  }
  const revision = handle.memory?.revision ?? 0;
  return {
    json: { scope_id: args.scope, revision, entries },
    text: `Exported ${entries} entries of scope "${printable(args.scope, { oneLine: true })}" at revision ${revision}`,
  };
}
