import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryMemoryStore } from '@powercontext/memory-core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime } from './create-runtime.js';
import { IdempotencyKeyReusedError, loadRuntimeConfig } from './index.js';

const dataDir = mkdtempSync(join(tmpdir(), 'pc-runtime-idempotency-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('idempotent writes through the runtime', () => {
  it('replays every write of the scoped API on the embedded store, and refuses a reused key', async () => {
    const runtime = await createRuntime({ env: { POWERCONTEXT_SERVER_DATA_DIR: dataDir } });
    try {
      const memory = runtime.memory.forScope('project');
      const request = { entries: [{ text: 'We deploy on Fridays.' }, { text: 'Lunch is at noon.' }] };
      const written = await memory.remember(request, { idempotencyKey: 'remember-7f3a' });
      expect(await memory.remember(request, { idempotencyKey: 'remember-7f3a' })).toEqual({
        ...written,
        replayed: true,
      });
      const entryId = written.entries[0]!.entryId;
      const revised = await memory.revise(
        { entryId, text: 'We deploy on Thursdays.' },
        { idempotencyKey: 'r-1' },
      );
      const forgotten = await memory.forget({ entryId }, { idempotencyKey: 'f-1' });
      const back = await memory.reactivate({ entryId }, { idempotencyKey: 'a-1' });
      expect(
        await memory.revise({ entryId, text: 'We deploy on Thursdays.' }, { idempotencyKey: 'r-1' }),
      ).toEqual({
        ...revised,
        replayed: true,
      });
      expect(await memory.forget({ entryId }, { idempotencyKey: 'f-1' })).toEqual({
        ...forgotten,
        replayed: true,
      });
      expect(await memory.reactivate({ entryId }, { idempotencyKey: 'a-1' })).toEqual({
        ...back,
        replayed: true,
      });
      const changes = await memory.changes({});
      expect(changes.memory?.revision).toBe(4);
      expect(changes.changes.map((change) => change.operation)).toEqual([
        'remember',
        'remember',
        'revise',
        'forget',
        'reactivate',
      ]);

      const reused = memory.remember(
        { entries: [{ text: 'another body' }] },
        { idempotencyKey: 'remember-7f3a' },
      );
      await expect(reused).rejects.toBeInstanceOf(IdempotencyKeyReusedError);
      await expect(reused).rejects.toMatchObject({ code: 'idempotency_key_reused', retryable: false });

      const records = [1, 2, 3].map((line) => ({ line, entry: { text: `imported line ${line}` } }));
      const imported = await memory.import(records, { batchSize: 2, idempotencyKey: 'import-1' });
      const again = await memory.import(records, { batchSize: 2, idempotencyKey: 'import-1' });
      expect(again).toMatchObject({ created: 3, batches: 2, memory: imported.memory });
      expect((await memory.changes({})).memory?.revision).toBe(6);
    } finally {
      await runtime.close();
    }
  });

  it('keeps keys for POWERCONTEXT_SERVER_RUNTIME_MEMORY_IDEMPOTENCY_RETENTION_SECONDS', async () => {
    expect(loadRuntimeConfig({}).idempotencyRetentionSeconds).toBe(86_400);
    expect(() =>
      loadRuntimeConfig({ POWERCONTEXT_SERVER_RUNTIME_MEMORY_IDEMPOTENCY_RETENTION_SECONDS: '59' }),
    ).toThrow(/POWERCONTEXT_SERVER_RUNTIME_MEMORY_IDEMPOTENCY_RETENTION_SECONDS: must be at least 60/u);
    const store = new InMemoryMemoryStore();
    const runtime = await createRuntime({
      env: { POWERCONTEXT_SERVER_RUNTIME_MEMORY_IDEMPOTENCY_RETENTION_SECONDS: '3600' },
      store,
    });
    try {
      await runtime.memory
        .forScope('s')
        .remember({ entries: [{ text: 'kept an hour' }] }, { idempotencyKey: 'k' });
      const record = await store.idempotencyRecord('s', 'k', new Date());
      expect(record!.expiresAt.getTime() - record!.createdAt.getTime()).toBe(3_600_000);
    } finally {
      await runtime.close();
    }
  });
});
