import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The built `powercontext` command of packages/server: every scenario runs the real server process. */
export const SERVER_BIN = fileURLToPath(
  new URL('../../../../packages/server/dist/bin/powercontext.js', import.meta.url),
);

export interface ServerProcess {
  url: string;
  pid: number;
  child: ChildProcess;
  /** Everything the process wrote on stderr so far (its JSON log lines). */
  stderr(): string;
  /** Resident set size in KiB, from /proc/<pid>/status; undefined once the process is gone. */
  rssKiB(): number | undefined;
  /** Sends `signal` (default SIGTERM) and resolves with the exit code (null after a signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
  /** True while the process runs. */
  alive(): boolean;
}

export interface StartOptions {
  args?: string[];
  env?: Record<string, string>;
  timeoutMs?: number;
}

/**
 * Starts `powercontext server run --port 0 ...args` and resolves once it printed
 * `listening on http://HOST:PORT`. Nothing of this process's POWERCONTEXT_* settings leaks in; the
 * log level is `debug` unless `env` says otherwise, so the log checks read as much as there is.
 */
export async function startServer(options: StartOptions = {}): Promise<ServerProcess> {
  if (!existsSync(SERVER_BIN)) throw new Error(`${SERVER_BIN} is missing: run \`pnpm build\` first`);
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('POWERCONTEXT_')),
  );
  const child = spawn(
    process.execPath,
    [SERVER_BIN, 'server', 'run', '--port', '0', ...(options.args ?? [])],
    {
      env: { ...inherited, POWERCONTEXT_SERVER_LOG_LEVEL: 'debug', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not start in time:\n${stderr}`));
    }, options.timeoutMs ?? 60_000);
    const onData = () => {
      const match = /^listening on (http:\/\/\S+)\n/u.exec(stdout);
      if (!match) return;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      resolve(match[1]!);
    };
    child.stdout.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code} before listening:\n${stderr}`));
    });
  });
  const alive = () => child.exitCode === null && child.signalCode === null;
  return {
    url,
    pid: child.pid!,
    child,
    stderr: () => stderr,
    rssKiB: () => readRssKiB(child.pid!),
    exited,
    alive,
    async stop(signal = 'SIGTERM') {
      if (alive()) child.kill(signal);
      return exited;
    },
  };
}

function readRssKiB(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB$/mu.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** The JSON log lines of a server, parsed (lines that are not JSON are skipped). */
export function logLines(server: Pick<ServerProcess, 'stderr'>): Record<string, unknown>[] {
  const lines: Record<string, unknown>[] = [];
  for (const line of server.stderr().split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // a line cut by the process being killed
    }
  }
  return lines;
}
