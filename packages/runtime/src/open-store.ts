import type { Logger, MemoryStore } from '@powercontext/memory-core';
import type * as StorePostgres from '@powercontext/store-postgres';
import type { ReplicatedStore } from '@powercontext/store-postgres';
import { ConfigurationError } from './configuration-error.js';
import type { RuntimeConfig } from './runtime-config.js';

// Opening the configured store: PGlite on a data directory, or PostgreSQL with its read replicas.

export interface OpenedStore {
  store: MemoryStore;
  /** The primary's own store when reads are routed to replicas (or the store itself). */
  primary?: MemoryStore;
  replicated?: ReplicatedStore;
}

/**
 * The store's indexes in memory within POWERCONTEXT_SERVER_STORE_INDEX_MEMORY_MB: two thirds for the
 * lexical indexes, one third for the vectors (RFC 0002, "Indexes that follow writes"); none at 0.
 */
function indexCachesOf(config: RuntimeConfig) {
  const bytes = config.indexMemoryMb * 1024 * 1024;
  if (bytes === 0) return { lexicalIndexCache: false, vectorIndexCache: false } as const;
  return {
    lexicalIndexCache: { maxBytes: Math.floor((bytes * 2) / 3) },
    vectorIndexCache: { maxBytes: Math.floor(bytes / 3) },
  };
}

export async function openStore(
  {
    CitusMissingError,
    createPGliteMemoryStore,
    createPostgresMemoryStore,
    ReplicatedStore,
    replicaLagSeconds,
  }: typeof StorePostgres,
  config: RuntimeConfig,
  logger: Logger,
  pgliteSharedBuffers: string,
): Promise<OpenedStore> {
  if (config.store.kind !== 'postgres') {
    return {
      store: await createPGliteMemoryStore({
        dataDir: config.store.dataDir,
        textSearchConfig: config.textSearchConfig,
        ...indexCachesOf(config),
        sharedBuffers: pgliteSharedBuffers,
      }),
    };
  }
  const settings = config.store;
  const bounds = {
    ...(settings.statementTimeoutMs === undefined ? {} : { statementTimeoutMs: settings.statementTimeoutMs }),
    ...(settings.lockTimeoutMs === undefined
      ? settings.statementTimeoutMs === undefined
        ? {}
        : { lockTimeoutMs: settings.statementTimeoutMs }
      : { lockTimeoutMs: settings.lockTimeoutMs }),
  };
  const primary = await createPostgresMemoryStore({
    connectionString: settings.connectionString.reveal(),
    textSearchConfig: config.textSearchConfig,
    ...indexCachesOf(config),
    ...bounds,
    distribution: settings.distribution ?? 'none',
    onMigrated: ({ applied }) => {
      if (applied.length > 0)
        logger.info('store.migrations_applied', { migrations: applied.join(','), count: applied.length });
    },
    onDistributed: ({ distributed }) => {
      if (distributed.length > 0)
        logger.info('store.tables_distributed', { tables: distributed.join(','), count: distributed.length });
    },
  }).catch((error: unknown) => {
    if (error instanceof Error && error.cause instanceof CitusMissingError) {
      throw new ConfigurationError('POWERCONTEXT_SERVER_DATABASE_DISTRIBUTION', error.message, {
        cause: error,
      });
    }
    throw error;
  });
  if (settings.readConnectionStrings.length === 0) return { store: primary, primary };
  // Replicas open without connecting (no migration on a standby): one that is down at start-up is
  // skipped like one that goes down later.
  const replicas = await Promise.all(
    settings.readConnectionStrings.map(async (secret) => {
      const replica = await createPostgresMemoryStore({
        connectionString: secret.reveal(),
        textSearchConfig: config.textSearchConfig,
        ...indexCachesOf(config),
        readOnly: true,
        ...bounds,
      });
      return {
        name: replicaName(secret.reveal()),
        store: replica,
        lagSeconds: () => replicaLagSeconds(replica),
      };
    }),
  );
  const replicated = new ReplicatedStore({
    primary,
    replicas,
    minRevisionWaitMs: config.reads.minRevisionWaitMs,
    minRevisionFallback: config.reads.minRevisionFallback,
    onReplicaDown: (name, error) =>
      logger.warn('store.replica_down', {
        replica: name,
        errorName: error instanceof Error ? error.name : typeof error,
        action: 'skipped for 5 s; reads go to another replica or the primary',
      }),
  });
  return { store: replicated.store, primary, replicated };
}

/** host:port/database of a replica URL: how logs, metrics and /readyz name it (never credentials). */
function replicaName(connectionString: string): string {
  const url = new URL(connectionString);
  return `${url.hostname}:${url.port || '5432'}${url.pathname}`;
}
