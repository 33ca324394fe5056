import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime } from './create-runtime.js';
import { EntryPurgedError } from './index.js';

const dataDir = mkdtempSync(join(tmpdir(), 'pc-runtime-purge-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('forScope(s).purge on the embedded default (RFC 0002, "Purge")', () => {
  it('erases the entry from every search mode, context and read; a citation of it answers purged', async () => {
    const runtime = await createRuntime({ env: { POWERCONTEXT_SERVER_DATA_DIR: dataDir } });
    try {
      const memory = runtime.memory.forScope('project');
      const written = await memory.remember({
        entries: [
          { text: 'The staging password is quartzbanjo', position: { sourceId: 'standup', order: 1 } },
          {
            text: 'We deploy on Fridays after the freeze review',
            position: { sourceId: 'standup', order: 2 },
          },
        ],
      });
      const secretId = written.entries[0]!.entryId;
      const before = await memory.search({ query: 'staging password quartzbanjo' });
      expect(before.hits[0]?.citation.entryId).toBe(secretId);
      const citation = before.hits[0]!.citation;

      const purged = await memory.purge({ entryId: secretId, purgedBy: 'ops' });
      expect(purged).toMatchObject({
        status: 'purged',
        memory: { revision: 2 },
        tombstone: { entryId: secretId },
      });

      for (const mode of ['auto', 'fts', 'vector', 'hybrid'] as const) {
        const after = await memory.search({ query: 'staging password quartzbanjo', mode });
        expect(after.hits.map((hit) => hit.text).join(' '), mode).not.toContain('quartzbanjo');
      }
      const prepared = await memory.prepareContext({ query: 'staging password quartzbanjo' });
      expect(JSON.stringify(prepared.assembly)).not.toContain('quartzbanjo');
      expect(await memory.resolveCitation(citation)).toMatchObject({
        status: 'purged',
        entryId: secretId,
        purge: { revision: 2, purgedBy: 'ops' },
      });
      const read = memory.get({ entryId: secretId, revision: 1 });
      await expect(read).rejects.toBeInstanceOf(EntryPurgedError);
      await expect(read).rejects.toMatchObject({ code: 'entry_purged' });
      const changes = await memory.changes({});
      expect(JSON.stringify(changes)).not.toContain('quartzbanjo');
      expect(changes.changes.filter((change) => change.purged).map((change) => change.operation)).toEqual([
        'remember',
        'purge',
      ]);
      // The neighbour stays, and no longer carries the purged words in its index.
      const neighbour = await memory.search({ query: 'Fridays freeze', mode: 'fts' });
      expect(neighbour.hits.map((hit) => hit.citation.entryId)).toEqual([written.entries[1]!.entryId]);
    } finally {
      await runtime.close();
    }
  });
});
