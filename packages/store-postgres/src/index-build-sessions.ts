import { Kysely, PostgresDialect, sql } from 'kysely';
import type pg from 'pg';
import type { Database } from './database.js';
import type { IndexBuildSessions } from './hnsw-indexes.js';

/** Sessions that never run a build (a read-only store). */
export const NO_INDEX_BUILDS: IndexBuildSessions = {
  run: async () => {},
  close: async () => {},
};

/**
 * Index builds on PostgreSQL: one connection of their own, opened on first use, with no statement
 * bound (the store's pool cancels any statement after its timeout; a build of a large scope takes
 * minutes). Closing cancels a build in flight (`pg_cancel_backend` from a short second connection),
 * which leaves an invalid index for the next build to drop, and closes the connection.
 */
export function indexBuildSessions(pgModule: typeof pg, connectionString: string): IndexBuildSessions {
  let db: Kysely<Database> | undefined;
  const running = new Set<number>();
  return {
    async run(work) {
      db ??= new Kysely<Database>({
        dialect: new PostgresDialect({
          pool: new pgModule.Pool({ connectionString, max: 1, keepAlive: true }),
        }),
      });
      await db.connection().execute(async (session) => {
        const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(session);
        const pid = rows[0]!.pid;
        running.add(pid);
        try {
          await work(session);
        } finally {
          running.delete(pid);
        }
      });
    },
    async close() {
      if (running.size > 0) {
        const client = new pgModule.Client({ connectionString });
        try {
          await client.connect();
          await client.query('SELECT pg_cancel_backend(pid) FROM unnest($1::int[]) AS pid', [[...running]]);
        } catch {
          // The connection is closed below either way; the server ends the build when it notices.
        } finally {
          await client.end().catch(() => {});
        }
      }
      await db?.destroy().catch(() => {});
    },
  };
}
