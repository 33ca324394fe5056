import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime } from './create-runtime.js';
import { exportedEntry, NotFoundError, ScopePurgedError } from './index.js';

const root = mkdtempSync(join(tmpdir(), 'pc-runtime-lifecycle-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const ENTRIES = [
  { text: 'The staging password is quartzbanjo', kind: 'fact', metadata: { team: 'ops' } },
  { text: 'We deploy on Fridays after the freeze review', sources: [{ sourceId: 'standup', locator: 'L4' }] },
  { text: 'Invoices go out on the first Monday', position: { sourceId: 'handbook', order: 3 } },
];

describe('forScope(s).deleteScope and openExport on the embedded default (RFC 0015)', () => {
  it('deletes a scope: every read and write then throws ScopePurgedError, other scopes stay', async () => {
    const runtime = await createRuntime({ env: { POWERCONTEXT_SERVER_DATA_DIR: join(root, 'delete') } });
    try {
      const memory = runtime.memory.forScope('doomed');
      await memory.remember({ entries: ENTRIES });
      await runtime.memory.forScope('kept').remember({ entries: [{ text: 'quartzbanjo stays here' }] });
      const deleted = await memory.deleteScope({ deletedBy: 'ops' });
      expect(deleted).toMatchObject({
        status: 'deleted',
        tombstone: { scopeId: 'doomed', revision: 1, entries: 3, deletedBy: 'ops' },
      });
      await expect(memory.search({ query: 'quartzbanjo' })).rejects.toBeInstanceOf(ScopePurgedError);
      await expect(memory.search({ query: 'quartzbanjo' }, { minRevision: 1 })).rejects.toMatchObject({
        code: 'scope_purged',
      });
      await expect(memory.prepareContext({ query: 'quartzbanjo' })).rejects.toBeInstanceOf(ScopePurgedError);
      await expect(memory.list({ revision: 1 })).rejects.toBeInstanceOf(ScopePurgedError);
      await expect(memory.remember({ entries: [{ text: 'again' }] })).rejects.toBeInstanceOf(
        ScopePurgedError,
      );
      await expect(memory.openExport()).rejects.toBeInstanceOf(ScopePurgedError);
      expect(await memory.deleteScope()).toEqual({ ...deleted, status: 'unchanged' });
      await expect(runtime.memory.forScope('never').deleteScope()).rejects.toBeInstanceOf(NotFoundError);
      const kept = await runtime.memory.forScope('kept').search({ query: 'quartzbanjo' });
      expect(kept.hits.map((hit) => hit.text)).toEqual(['quartzbanjo stays here']);
    } finally {
      await runtime.close();
    }
  });

  it('restores a copy of a stopped store’s data directory, and an export imported elsewhere', async () => {
    const original = join(root, 'original');
    const copy = join(root, 'copy');
    const first = await createRuntime({ env: { POWERCONTEXT_SERVER_DATA_DIR: original } });
    const exported: unknown[] = [];
    try {
      await first.memory.forScope('project').remember({ entries: ENTRIES });
      const handle = await first.memory.forScope('project').openExport();
      for await (const page of handle.pages()) exported.push(...page.map(exportedEntry));
    } finally {
      await first.close();
    }
    // The backup: a copy of the directory of a stopped store, opened as a store of its own.
    cpSync(original, copy, { recursive: true });
    const restored = await createRuntime({ env: { POWERCONTEXT_SERVER_DATA_DIR: copy } });
    try {
      const hits = await restored.memory.forScope('project').search({ query: 'staging password' });
      expect(hits.hits[0]?.text).toBe('The staging password is quartzbanjo');
      const again = await restored.memory.forScope('project').openExport();
      const lines: unknown[] = [];
      for await (const page of again.pages()) lines.push(...page.map(exportedEntry));
      expect(lines).toEqual(exported);
      // The export path: the entries imported into a new scope export the same lines.
      await restored.memory.forScope('restored').import(exported.map((entry, i) => ({ line: i + 1, entry })));
      const fromImport: unknown[] = [];
      for await (const page of (await restored.memory.forScope('restored').openExport()).pages()) {
        fromImport.push(...page.map(exportedEntry));
      }
      expect(fromImport).toEqual(exported);
    } finally {
      await restored.close();
    }
  });
});
