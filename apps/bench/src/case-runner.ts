import { type ChildProcess, fork } from 'node:child_process';
import type { CaseSpec } from './case-spec.js';
import type { PeerResult, StoreResult } from './scale-report.js';

/** What a case's child process reports. */
export type CaseMessage =
  | { ok: true; result: StoreResult; embeddingProfile: string; retrievalPolicy: string }
  | { ok: true; result: PeerResult }
  | { ok: false; reason: string };

const CHILD = new URL('./scale-case.js', import.meta.url);

/** The case running now: an interrupt of the benchmark stops it, so that it cleans up, before exiting. */
let running: ChildProcess | undefined;
let stopping = false;

function stopRunningCase(): void {
  if (stopping) return;
  stopping = true;
  if (!running || running.exitCode !== null || running.signalCode !== null) process.exit(130);
  running.once('exit', () => process.exit(130));
  running.kill('SIGTERM');
}
process.on('SIGINT', stopRunningCase);
process.on('SIGTERM', stopRunningCase);

/**
 * Runs one case in a child process of its own (sharing this terminal for its progress bars) and
 * resolves with its message; a child that dies without one (out of memory, a signal) is a failure.
 */
export function runCaseInChild(spec: CaseSpec): Promise<CaseMessage> {
  return new Promise((resolve) => {
    let message: CaseMessage | undefined;
    const child = fork(CHILD, [JSON.stringify(spec)], { stdio: 'inherit' });
    running = child;
    child.on('message', (received) => {
      message = received as CaseMessage;
    });
    child.on('error', (error) => {
      message ??= { ok: false, reason: `the case process failed: ${error.message}` };
    });
    child.on('exit', (code, signal) => {
      resolve(
        message ?? {
          ok: false,
          reason: `the case process ended without a result (${signal ? `signal ${signal}` : `exit code ${code}`})`,
        },
      );
    });
  });
}
