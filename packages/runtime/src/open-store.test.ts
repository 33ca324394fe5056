import { noopLogger, StoreIncompatibleError } from '@powercontext/memory-core';
import type * as StorePostgres from '@powercontext/store-postgres';
import { CitusMissingError } from '@powercontext/store-postgres';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from './configuration-error.js';
import { openStore } from './open-store.js';
import { loadRuntimeConfig } from './runtime-config.js';

describe('openStore on a database asked to be distributed', () => {
  const config = loadRuntimeConfig({
    POWERCONTEXT_SERVER_DATABASE_URL: 'postgres://coordinator.invalid/memory',
    POWERCONTEXT_SERVER_DATABASE_DISTRIBUTION: 'citus',
  });

  it('passes the distribution to the store and turns "no Citus there" into a ConfigurationError naming the setting', async () => {
    const asked: unknown[] = [];
    const reason = 'distribution "citus" needs a Citus coordinator: this database has no citus extension';
    const stores = {
      CitusMissingError,
      createPostgresMemoryStore: async (options: { distribution?: string }) => {
        asked.push(options.distribution);
        throw new StoreIncompatibleError(`Cannot open database "memory": ${reason}`, {
          cause: new CitusMissingError(reason),
        });
      },
    } as unknown as typeof StorePostgres;
    const error = await openStore(stores, config, noopLogger, 'fit').catch((failure: Error) => failure);
    expect(asked).toEqual(['citus']);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).setting).toBe('POWERCONTEXT_SERVER_DATABASE_DISTRIBUTION');
    expect((error as Error).message).toContain('needs a Citus coordinator');
  });

  it('leaves any other failure to open as it is', async () => {
    const unreachable = new StoreIncompatibleError(
      'Cannot open database "memory": the database does not exist',
    );
    const stores = {
      CitusMissingError,
      createPostgresMemoryStore: async () => {
        throw unreachable;
      },
    } as unknown as typeof StorePostgres;
    await expect(openStore(stores, config, noopLogger, 'fit')).rejects.toBe(unreachable);
  });
});
