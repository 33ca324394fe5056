import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { StructuredGenerator } from '../structured-generator.port.js';
import { untilAborted } from './scripted-call.js';
import { createScriptedGenerator } from './scripted-generator.js';
import {
  describeStructuredGeneratorConformance,
  type GeneratorBackend,
  runStructuredGeneratorConformance,
  type StructuredGeneratorConformanceOptions,
  structuredGeneratorConformanceSuite,
} from './structured-generator-conformance.js';

/** The in-memory fake: the script plays the model. */
function scriptedGenerator(backend: GeneratorBackend, limits: { timeoutMs: number }) {
  return createScriptedGenerator({
    timeoutMs: limits.timeoutMs,
    ...(backend.kind === 'answer' && backend.tokens ? { tokens: backend.tokens } : {}),
    answer(_request, signal) {
      if (backend.kind === 'fail') throw new Error('connect ECONNREFUSED 127.0.0.1');
      if (backend.kind === 'hang') return untilAborted(signal);
      return backend.text;
    },
  });
}

describeStructuredGeneratorConformance('scripted in-memory generator', { create: scriptedGenerator });

describe('the StructuredGenerator conformance suite itself', () => {
  it('names the RFC section or seed of every rule it checks', () => {
    const unnamed = structuredGeneratorConformanceSuite({ create: scriptedGenerator }).checks.filter(
      (check) => !/RFC \d{4} "|seed 00[0134]/.test(check.rule),
    );
    expect(unnamed.map((check) => `${check.title} [${check.rule}]`)).toEqual([]);
  });

  const failedTitles = async (create: StructuredGeneratorConformanceOptions['create']) =>
    (await runStructuredGeneratorConformance({ create, patienceMs: 1_000 }))
      .filter((outcome) => !outcome.passed)
      .map((outcome) => outcome.title);

  it('passes the scripted fake on every check', async () => {
    expect(await failedTitles(scriptedGenerator)).toEqual([]);
  });

  it('fails a generator that returns the raw JSON without applying the schema', async () => {
    const unchecked = (backend: GeneratorBackend, limits: { timeoutMs: number }): StructuredGenerator => {
      const inner = scriptedGenerator(backend, limits);
      return {
        async generate(request) {
          const { usage } = await inner.generate({ ...request, schema: z.unknown() });
          return { output: JSON.parse(backend.kind === 'answer' ? backend.text : '{}'), usage };
        },
      };
    };
    expect(await failedTitles(unchecked)).toEqual([
      'returns the answer parsed by the request schema (defaults applied), with one call of usage',
      'refuses output that does not match the schema, or is not JSON, as inference_invalid_output',
    ]);
  });

  it('fails a generator that reports a running total of its usage', async () => {
    const totalling = (backend: GeneratorBackend, limits: { timeoutMs: number }): StructuredGenerator => {
      const inner = scriptedGenerator(backend, limits);
      let calls = 0;
      return {
        async generate(request) {
          const result = await inner.generate(request);
          calls += 1;
          return { ...result, usage: { ...result.usage, calls } };
        },
      };
    };
    expect(await failedTitles(totalling)).toEqual(['reports usage per call, never a running total']);
  });
});
