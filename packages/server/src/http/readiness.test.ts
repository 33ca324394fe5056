import { InMemoryMemoryStore } from '@powercontext/memory-core/testing';
import { createRuntime, type Runtime, type RuntimeStatus } from '@powercontext/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../testing-support/in-process-app.js';
import { secretOf } from '../testing-support/test-keys.js';

// Issue 28: /readyz answered a caller without a key, on a server with keys, with each read replica's
// host:port/database and the database's migration state. Now such a caller learns ready or not.

const REPLICA = 'replica-7.internal:5432/memory';

let runtime: Runtime;
beforeAll(async () => {
  runtime = await createRuntime({ env: {}, store: new InMemoryMemoryStore() });
});
afterAll(async () => {
  await runtime.close();
});

/** The runtime, reporting `database` and one replica as its status. */
function reporting(database: RuntimeStatus['database']): Runtime {
  return {
    ...runtime,
    status: async () => ({ database, replicas: [{ name: REPLICA, lagSeconds: 0.5, down: false }] }),
  };
}

const UP = { reachable: true, migrationsCurrent: true, missingMigrations: [] };
const MISSING = { reachable: true, migrationsCurrent: false, missingMigrations: ['0011_future'] };

describe('/readyz detail (issue 28)', () => {
  it('says only "ready" to a caller without a key, or with a key the server does not know', async () => {
    const { call } = createTestApp(reporting(UP));
    const sent: Record<string, string>[] = [
      {},
      { authorization: 'Bearer not-a-key' },
      { authorization: 'Basic abc' },
    ];
    for (const headers of sent) {
      const ready = await call('/readyz', undefined, { headers });
      expect(ready.status, ready.text).toBe(200);
      expect(ready.json).toEqual({ status: 'ready' });
      expect(ready.text).not.toContain('replica-7');
    }
  });

  it('gives a valid key of any permission the database state and each replica', async () => {
    const { call } = createTestApp(reporting(UP));
    const ready = await call('/readyz', undefined, { key: secretOf('alpha-reader') });
    expect(ready.status, ready.text).toBe(200);
    expect(ready.json).toEqual({
      status: 'ready',
      database: { reachable: true, migrations_current: true },
      replicas: [{ name: REPLICA, lag_seconds: 0.5, down: false }],
    });
  });

  it('answers not ready without a reason to a caller without a key, and the reason to a valid key', async () => {
    const { call } = createTestApp(reporting(MISSING));
    const anonymous = await call('/readyz');
    expect(anonymous.status).toBe(503);
    expect(anonymous.headers.get('retry-after')).toBe('1');
    expect(anonymous.json).toEqual({
      error: { code: 'not_ready', message: 'The server is not ready', retryable: true },
    });
    const keyed = await call('/readyz', undefined, { key: secretOf('beta-all') });
    expect(keyed.status).toBe(503);
    expect(keyed.json.error).toMatchObject({
      code: 'database_unavailable',
      details: { reachable: true, migrations_current: false, replicas: [{ name: REPLICA }] },
    });
    expect(keyed.json.error.message).toContain('0011_future');
  });

  it('keeps the detail on a keyless server: it serves loopback only, and every caller has full access', async () => {
    const { call } = createTestApp(reporting(UP), { auth: { kind: 'local' } });
    const ready = await call('/readyz', undefined, { headers: { host: '127.0.0.1:7474' } });
    expect(ready.status, ready.text).toBe(200);
    expect(ready.json).toMatchObject({ status: 'ready', replicas: [{ name: REPLICA }] });
  });
});
