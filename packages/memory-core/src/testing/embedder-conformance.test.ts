import { describe, expect, it } from 'vitest';
import type { Embedder } from '../ports/embedder.port.js';
import {
  describeEmbedderConformance,
  type EmbedderConformanceOptions,
  embedderConformanceSuite,
  runEmbedderConformance,
} from './embedder-conformance.js';
import { createFakeEmbedder } from './fake-embedder.js';

// The fake computes its vectors in-process: no backend that could fail or hang.
const fake: EmbedderConformanceOptions = { create: () => createFakeEmbedder(), local: true };

describeEmbedderConformance('fake bag-of-words embedder', fake);

describe('the Embedder conformance suite itself', () => {
  it('names the RFC section or seed of every rule it checks', () => {
    const unnamed = embedderConformanceSuite({ create: fake.create }).checks.filter(
      (check) => !/RFC \d{4} "|seed 00[0134]/.test(check.rule),
    );
    expect(unnamed.map((check) => `${check.title} [${check.rule}]`)).toEqual([]);
  });

  const failed = async (create: EmbedderConformanceOptions['create']) =>
    (await runEmbedderConformance({ create, local: true, patienceMs: 1_000 })).filter(
      (outcome) => !outcome.passed,
    );

  it('passes the fake on every check', async () => {
    expect(await failed(fake.create)).toEqual([]);
  });

  it('fails an embedder that reorders a batch', async () => {
    const reordering = (): Embedder => {
      const inner = createFakeEmbedder();
      return {
        profile: inner.profile,
        async embed(texts, options) {
          const vectors = await inner.embed(texts, options);
          return texts.length > 1 ? [...vectors.slice(1), vectors[0]!] : vectors;
        },
      };
    };
    const failures = await failed(reordering);
    expect(failures.map((outcome) => outcome.title)).toEqual([
      'keeps the batch order: vector i belongs to text i, across batch boundaries',
    ]);
    expect(failures[0]!.message).toContain('the batch order was not kept');
    expect(failures[0]!.rule).toContain('RFC 0002 "Testing"');
  });

  it('fails an embedder that strips NUL silently, and one with a dimension other than its profile', async () => {
    const stripping = (): Embedder => {
      const inner = createFakeEmbedder();
      return {
        profile: inner.profile,
        embed: (texts, options) =>
          inner.embed(
            texts.map((t) => t.replaceAll('\u0000', '')),
            options,
          ),
      };
    };
    expect((await failed(stripping)).map((outcome) => outcome.title)).toEqual([
      'refuses text with NUL before any backend call, naming the text',
    ]);

    const short = (): Embedder => {
      const inner = createFakeEmbedder();
      return {
        profile: inner.profile,
        embed: async (texts, options) => (await inner.embed(texts, options)).map((v) => v.slice(1)),
      };
    };
    const shortFailures = await failed(short);
    expect(shortFailures.length).toBeGreaterThan(0);
    expect(shortFailures[0]!.message).toContain("must hold 64 finite numbers (the profile's dimension)");
  });
});
