/**
 * A child process of `pnpm bench`: runs one case (one store or one peer at one size) given as JSON in
 * argv[2], and sends the outcome to the parent over IPC. A process per case makes each case's peak
 * RSS its own.
 */

import type { CaseMessage } from './case-runner.js';
import type { CaseSpec } from './case-spec.js';
import { describeError } from './describe-error.js';
import { InterruptedError, stopOnSignals } from './interrupts.js';
import { runPeerCase } from './peer-case.js';
import { runStoreCase } from './store-case.js';

async function run(spec: CaseSpec): Promise<CaseMessage> {
  try {
    if (spec.kind === 'store') {
      const { result, embeddingProfile, retrievalPolicy } = await runStoreCase(spec);
      return { ok: true, result, embeddingProfile, retrievalPolicy };
    }
    return { ok: true, result: await runPeerCase(spec) };
  } catch (error) {
    return { ok: false, reason: describeError(error) };
  }
}

if (!process.send) throw new Error('scale-case runs as a child process of the scale benchmark');
stopOnSignals();
const message = await run(JSON.parse(process.argv[2] ?? '') as CaseSpec);
if (process.connected) process.send(message, () => process.disconnect());
if (!message.ok && message.reason.startsWith(InterruptedError.name)) process.exitCode = 130;
