import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Call, createCall } from './http-call.js';

/** The built command line: the end-to-end tests run the real `powercontext` process. */
export const BIN = fileURLToPath(new URL('../../dist/bin/powercontext.js', import.meta.url));

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  call: Call;
  /** What the process wrote on stdout and stderr so far. */
  stdout(): string;
  stderr(): string;
  /** Sends the signal (default SIGTERM) and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
}

/**
 * The environment of a server process: nothing of this process's POWERCONTEXT_* settings leaks in,
 * and logs stay quiet unless a test asks for them.
 */
function processEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('POWERCONTEXT_')),
  );
  return { ...inherited, POWERCONTEXT_SERVER_LOG_LEVEL: 'warn', ...env };
}

function spawnServer(args: string[], env: Record<string, string>) {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`pnpm build\` before the server tests`);
  const child = spawn(process.execPath, [BIN, 'server', 'run', ...args], {
    env: processEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

/**
 * Starts `powercontext server run --port 0 ...args` and resolves once it printed its
 * `listening on http://HOST:PORT` line (the port the kernel gave it).
 */
export async function startServerProcess(
  options: { args?: string[]; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<ServerProcess> {
  const spawned = spawnServer(['--port', '0', ...(options.args ?? [])], options.env ?? {});
  const { child } = spawned;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not start in time:\n${spawned.stderr()}`));
    }, options.timeoutMs ?? 30_000);
    const onData = () => {
      const match = /^listening on (http:\/\/\S+)\n/u.exec(spawned.stdout());
      if (!match) return;
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      resolve(match[1]!);
    };
    child.stdout?.on('data', onData);
    void spawned.exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code} before listening:\n${spawned.stderr()}`));
    });
  });
  return {
    url,
    child,
    call: createCall((path, init) => fetch(`${url}${path}`, init)),
    stdout: spawned.stdout,
    stderr: spawned.stderr,
    exited: spawned.exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return spawned.exited;
    },
  };
}

/** Runs `powercontext server run ...args` expecting it to stop by itself (a configuration error). */
export async function runServerToExit(options: { args?: string[]; env?: Record<string, string> } = {}) {
  const spawned = spawnServer(options.args ?? [], options.env ?? {});
  const timer = setTimeout(() => spawned.child.kill('SIGKILL'), 20_000);
  const code = await spawned.exited;
  clearTimeout(timer);
  return { code, stdout: spawned.stdout(), stderr: spawned.stderr() };
}
