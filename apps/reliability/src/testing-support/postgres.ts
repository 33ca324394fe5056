import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/** The shared cluster where throw-away databases are created. The suite never skips without it. */
export const ADMIN_DATABASE_URL =
  process.env.POWERCONTEXT_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  connectionString: string;
  drop(): Promise<void>;
}

async function admin<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** An empty database on the shared cluster (or on `adminUrl`); `drop` removes it, connections and all. */
export async function createTestDatabase(adminUrl = ADMIN_DATABASE_URL): Promise<TestDatabase> {
  const name = `pc_reliability_${randomUUID().replaceAll('-', '')}`;
  await admin(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    connectionString: url.toString(),
    drop: () =>
      admin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(
        () => {},
      ),
  };
}

/**
 * A PostgreSQL cluster of our own (initdb in a temporary directory, on a free loopback port), so a
 * scenario can stop the database server and start it again without touching the shared cluster that
 * other tests use. Uses the binaries of the machine's PostgreSQL (the same major version, with
 * pgvector installed). PostgreSQL refuses to run as root, so under root the commands run as the
 * `postgres` user.
 */
export interface PrivateCluster {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  adminUrl: string;
  port: number;
  /** `pg_ctl stop`: `immediate` kills the server processes like a crash (recovery on next start). */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  /** Stops the cluster if it runs and deletes its directory. */
  destroy(): Promise<void>;
}

export async function startPrivateCluster(): Promise<PrivateCluster> {
  const { dir, dataDir, exec } = await clusterDir();
  await exec('initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync']);
  return startIn(dir, dataDir, exec);
}

/**
 * A streaming replica of `primary` (`pg_basebackup -R`: a copy of the primary's data directory that
 * starts as a hot standby and follows the primary's WAL), in a temporary directory on a port of its
 * own. `stop`/`start`/`destroy` act on the replica only.
 */
export async function startStreamingReplica(primary: PrivateCluster): Promise<PrivateCluster> {
  const { dir, dataDir, exec } = await clusterDir();
  await exec('pg_basebackup', [
    '-h',
    '127.0.0.1',
    '-p',
    String(primary.port),
    '-U',
    'postgres',
    '-D',
    dataDir,
    '-R',
    '-X',
    'stream',
    // Start at once instead of waiting for a spread checkpoint of the primary.
    '--checkpoint=fast',
    '--no-sync',
  ]);
  return startIn(dir, dataDir, exec);
}

type Exec = (command: string, args: string[]) => Promise<unknown>;

async function clusterDir(): Promise<{ dir: string; dataDir: string; exec: Exec }> {
  const bin = await postgresBinDir();
  const dir = mkdtempSync(join(tmpdir(), 'pc-reliability-pg-'));
  const dataDir = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { uid, gid } = await postgresUser();
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  const exec: Exec = (command, args) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', join(bin, command), ...args])
      : run(join(bin, command), args);
  return { dir, dataDir, exec };
}

async function startIn(dir: string, dataDir: string, exec: Exec): Promise<PrivateCluster> {
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=50`;
  const start = async () => {
    await exec('pg_ctl', [
      '-D',
      dataDir,
      '-o',
      options,
      '-l',
      join(dir, 'server.log'),
      '-w',
      '-t',
      '60',
      'start',
    ]);
  };
  const stop = async (mode: 'fast' | 'immediate' = 'fast') => {
    await exec('pg_ctl', ['-D', dataDir, '-m', mode, '-w', 'stop']);
  };
  await start();
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    adminUrl,
    port,
    stop,
    start,
    async destroy() {
      if (existsSync(join(dataDir, 'postmaster.pid'))) await stop('immediate').catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The bin directory of the PostgreSQL major version the shared cluster runs. */
async function postgresBinDir(): Promise<string> {
  const version = await admin(ADMIN_DATABASE_URL, (client) => client.query('SHOW server_version_num'));
  const major = Math.floor(
    Number((version.rows[0] as { server_version_num: string }).server_version_num) / 10_000,
  );
  const dir = `/usr/lib/postgresql/${major}/bin`;
  if (!existsSync(join(dir, 'initdb'))) throw new Error(`PostgreSQL ${major} binaries not found in ${dir}`);
  return dir;
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
