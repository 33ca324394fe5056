import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { defaultDatabaseUrl } from './scale-args.js';
import { createThrowawayDatabase } from './throwaway-database.js';

async function databaseExists(name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: defaultDatabaseUrl() });
  await client.connect();
  try {
    const result = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    return result.rowCount === 1;
  } finally {
    await client.end();
  }
}

describe('createThrowawayDatabase (needs the PostgreSQL server; never skips)', () => {
  it('creates an empty database of its own, reports its size and drops it with open connections', async () => {
    const database = await createThrowawayDatabase(defaultDatabaseUrl());
    expect(database.name).toMatch(/^pc_bench_[0-9a-f]{12}$/);
    expect(new URL(database.url).pathname).toBe(`/${database.name}`);
    expect(await databaseExists(database.name)).toBe(true);
    const open = new pg.Client({ connectionString: database.url });
    await open.connect();
    open.on('error', () => {});
    await open.query('CREATE TABLE t (id int)');
    expect(await database.sizeBytes()).toBeGreaterThan(0);
    await database.drop();
    expect(await databaseExists(database.name)).toBe(false);
    await open.end().catch(() => {});
  });
});
