import type { FieldIssue, InvalidImportLineError } from '@powercontext/memory-core';
import { toWireField } from '../http/to-api-error.js';
import { toOptionalArtifactRef } from '../http/wire.js';

// Apart from import-command.ts, whose HTTP request schema loads Hono: every memory command reports
// failures, only `import` reads a file of entries.

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
