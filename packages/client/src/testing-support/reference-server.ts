import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The built `powercontext` command of packages/server; `pnpm test` builds it before the tests run. */
export const SERVER_BIN = fileURLToPath(new URL('../../../server/dist/bin/powercontext.js', import.meta.url));

export interface RunningServer {
  url: string;
  stop(): Promise<number | null>;
}

/**
 * Starts `powercontext server run --port 0` with `args` and `env`, and resolves with its URL once it
 * prints `listening on http://HOST:PORT`. Rejects with its stderr when it exits first.
 */
export async function startReferenceServer(
  args: string[],
  env: Record<string, string>,
): Promise<RunningServer> {
  if (!existsSync(SERVER_BIN))
    throw new Error(`${SERVER_BIN} is missing: build packages/server first (pnpm build)`);
  const child = spawn(process.execPath, [SERVER_BIN, 'server', 'run', '--port', '0', ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
      const match = /^listening on (http:\/\/\S+)$/m.exec(stdout);
      if (match) resolve(match[1]!);
    });
    exited.then(
      (code) => reject(new Error(`the server exited with ${code} before listening:\n${stderr}`)),
      reject,
    );
  });
  return { url, stop: () => stop(child, exited) };
}

async function stop(child: ChildProcess, exited: Promise<number | null>): Promise<number | null> {
  if (child.exitCode === null) child.kill('SIGTERM');
  return exited;
}
