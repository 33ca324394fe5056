import { fork } from 'node:child_process';
import type { CaseSpec } from './case-spec.js';
import type { PeerResult, StoreResult } from './scale-report.js';

/** What a case's child process reports. */
export type CaseMessage =
  | { ok: true; result: StoreResult; embeddingProfile: string; retrievalPolicy: string }
  | { ok: true; result: PeerResult }
  | { ok: false; reason: string };

const CHILD = new URL('./scale-case.js', import.meta.url);

/**
 * Runs one case in a child process of its own (sharing this terminal for its progress bars) and
 * resolves with its message; a child that dies without one (out of memory, a signal) is a failure.
 */
export function runCaseInChild(spec: CaseSpec): Promise<CaseMessage> {
  return new Promise((resolve) => {
    let message: CaseMessage | undefined;
    const child = fork(CHILD, [JSON.stringify(spec)], { stdio: 'inherit' });
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
