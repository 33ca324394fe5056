/**
 * Conformance suite of the `StructuredGenerator` port (RFC 0003 "Inference"). Every generation
 * adapter runs it unchanged; see CONTRIBUTING.md.
 */
import { z } from 'zod';
import type { StructuredGenerator } from '../structured-generator.port.js';
import {
  type ConformanceCheck,
  type ConformanceSuite,
  conform,
  registerConformanceSuite,
  runConformanceSuite,
  settleWithin,
  shown,
} from './conformance.js';
import { conformAbort, conformInferenceError, conformTokens, rejectionOf } from './expect-failure.js';

/**
 * How the model behind the generator must behave.
 * - `answer`: every request is answered with `text` as the model's message (JSON text or not),
 *   reporting `tokens` when given and no token counts otherwise.
 * - `fail`: the model cannot be reached or answers with a server error (HTTP 500) every time.
 * - `hang`: the model never answers.
 */
export type GeneratorBackend =
  | { kind: 'answer'; text: string; tokens?: { input: number; output: number } }
  | { kind: 'fail' }
  | { kind: 'hang' };

export interface StructuredGeneratorConformanceOptions {
  /** A generator of the adapter under test over a model that behaves as `backend` says, bounded by `timeoutMs`. */
  create(
    backend: GeneratorBackend,
    limits: { timeoutMs: number },
  ): StructuredGenerator | Promise<StructuredGenerator>;
  /** Called after every check: close what `create` opened. */
  cleanup?(): Promise<void> | void;
  /** How long a call may take before a check reports it as hanging. Default 5000 ms. */
  patienceMs?: number;
}

const schema = z.object({ ranks: z.array(z.int()), note: z.string().default('none') });
const request = {
  system: 'You rank candidates.',
  prompt: 'Query: "garden"\n[{"rank":1,"text":"x"}]',
  schema,
};

export function structuredGeneratorConformanceSuite(
  options: StructuredGeneratorConformanceOptions,
): ConformanceSuite {
  const patienceMs = options.patienceMs ?? 5_000;
  const roomy = { timeoutMs: patienceMs * 2 };

  async function generateOk(generator: StructuredGenerator, what: string) {
    const settled = await settleWithin(
      Promise.resolve().then(() => generator.generate(request)),
      patienceMs,
    );
    conform(settled.status !== 'timedOut', `${what}: no answer within ${patienceMs} ms`);
    conform(
      settled.status === 'fulfilled',
      `${what}: the call failed: ${settled.status === 'rejected' ? String(settled.reason) : ''}`,
    );
    return settled.value;
  }

  const checks: ConformanceCheck[] = [
    {
      title: 'returns the answer parsed by the request schema (defaults applied), with one call of usage',
      rule: 'RFC 0003 "Inference": generate returns { output, usage }',
      async run() {
        const generator = await options.create({ kind: 'answer', text: '{"ranks":[3,1]}' }, roomy);
        const { output, usage } = await generateOk(generator, 'a valid answer');
        conform(
          shown(output) === shown({ ranks: [3, 1], note: 'none' }),
          `the output must be the schema's parse of the answer (so the default of "note" is filled in): expected {"ranks":[3,1],"note":"none"}, got ${shown(output)}`,
        );
        conform(
          usage.calls === 1 && Number.isInteger(usage.requests) && usage.requests >= 1,
          `one generate is one call of at least one request, got ${shown(usage)}`,
        );
      },
    },
    {
      title: 'reports the tokens the model reported, and leaves unknown ones undefined (never 0)',
      rule: 'RFC 0003 "Inference": token counts appear only when the provider reports them',
      async run() {
        const reported = await options.create(
          { kind: 'answer', text: '{"ranks":[1]}', tokens: { input: 11, output: 7 } },
          roomy,
        );
        const first = (await generateOk(reported, 'an answer with token counts')).usage;
        conformTokens({ ...first }, 'an answer with token counts');
        conform(
          first.inputTokens === 11 && first.outputTokens === 7,
          `the model reported 11 input and 7 output tokens, the usage says ${shown(first)}`,
        );
        const unreported = await options.create({ kind: 'answer', text: '{"ranks":[1]}' }, roomy);
        const second = (await generateOk(unreported, 'an answer without token counts')).usage;
        conform(
          second.inputTokens === undefined && second.outputTokens === undefined,
          `the model reported no tokens, so the counts must stay undefined (unknown is not 0), got ${shown(second)}`,
        );
      },
    },
    {
      title: 'reports usage per call, never a running total',
      rule: 'RFC 0003 "Inference": usage.calls counts logical operations',
      async run() {
        const generator = await options.create({ kind: 'answer', text: '{"ranks":[2]}' }, roomy);
        await generateOk(generator, 'the first call');
        const { usage } = await generateOk(generator, 'the second call');
        conform(
          usage.calls === 1,
          `the second generate reported ${usage.calls} calls; usage belongs to one call`,
        );
      },
    },
    {
      title: 'refuses output that does not match the schema, or is not JSON, as inference_invalid_output',
      rule: 'RFC 0003 "Inference": the adapter validates the raw output with the schema itself',
      async run() {
        for (const text of ['{"ranks":["three"]}', '{"ranks":[1],"note":7}', 'Rank 3 is best.']) {
          const generator = await options.create({ kind: 'answer', text }, roomy);
          const error = await rejectionOf(
            () => generator.generate(request),
            patienceMs,
            `the answer ${shown(text)}`,
          );
          const failure = conformInferenceError(
            error,
            'inference_invalid_output',
            `the answer ${shown(text)}`,
          );
          conform(
            failure.retryable === false,
            `invalid output is not retryable, but the error says retryable: true`,
          );
        }
      },
    },
    {
      title: 'fails an unreachable model as inference_unavailable, with the requests sent',
      rule: 'RFC 0003 "Inference": inference_unavailable (connection refused, 5xx, 429, 408)',
      async run() {
        const generator = await options.create({ kind: 'fail' }, roomy);
        const error = await rejectionOf(() => generator.generate(request), patienceMs, 'a failing model');
        const failure = conformInferenceError(error, 'inference_unavailable', 'a failing model');
        conform(
          failure.usage!.requests >= 1,
          `the requests sent must be counted, got ${shown(failure.usage)}`,
        );
      },
    },
    {
      title: 'bounds the call by its own deadline: inference_timeout',
      rule: 'RFC 0003 "Inference": the timeout bounds the whole operation',
      async run() {
        const generator = await options.create({ kind: 'hang' }, { timeoutMs: 200 });
        const error = await rejectionOf(
          () => generator.generate(request),
          patienceMs,
          'a model that never answers',
        );
        conformInferenceError(error, 'inference_timeout', 'a model that never answers (timeout 200 ms)');
      },
    },
    {
      title: "honours the caller's abort, rethrowing the caller's reason",
      rule: 'RFC 0003 "Inference": the caller\'s abort reason rethrown unwrapped',
      async run() {
        const generator = await options.create({ kind: 'hang' }, roomy);
        await conformAbort((signal) => generator.generate({ ...request, signal }), patienceMs);
      },
    },
  ];
  return { checks, ...(options.cleanup ? { cleanup: () => options.cleanup?.() } : {}) };
}

export function describeStructuredGeneratorConformance(
  name: string,
  options: StructuredGeneratorConformanceOptions,
): void {
  registerConformanceSuite(
    `StructuredGenerator conformance: ${name}`,
    structuredGeneratorConformanceSuite(options),
  );
}

export function runStructuredGeneratorConformance(options: StructuredGeneratorConformanceOptions) {
  return runConformanceSuite(structuredGeneratorConformanceSuite(options));
}
