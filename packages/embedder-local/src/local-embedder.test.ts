import { PowerContextError, ValidationError } from '@powercontext/memory-core';
import { describe, expect, it } from 'vitest';
import { createLocalEmbedder } from './local-embedder.js';
import { LOCAL_HASH_MIN_COSINE } from './local-hash-profile.js';

function norm(vector: readonly number[]): number {
  return Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
}

function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  for (let index = 0; index < a.length; index += 1) dot += (a[index] ?? 0) * (b[index] ?? 0);
  const lengths = norm(a) * norm(b);
  return lengths === 0 ? 0 : dot / lengths;
}

describe('createLocalEmbedder', () => {
  it('is deterministic across calls and across instances', async () => {
    const texts = ['Caroline went to the LGBTQ support group on Tuesday.', 'Melanie paints sunsets.'];
    const first = await createLocalEmbedder().embed(texts);
    const again = await createLocalEmbedder().embed(texts);
    const sameInstance = createLocalEmbedder();
    expect(again).toEqual(first);
    expect(await sameInstance.embed(texts)).toEqual(await sameInstance.embed(texts));
  });

  it('returns one vector per text, in input order, of the profile dimension', async () => {
    const embedder = createLocalEmbedder({ dimension: 64 });
    const [a, b, c] = await embedder.embed(['alpha beta', 'gamma delta', 'alpha beta']);
    expect(a).toHaveLength(64);
    expect(b).toHaveLength(64);
    expect(c).toEqual(a);
    expect(b).not.toEqual(a);
    expect(await embedder.embed([])).toEqual([]);
  });

  it('returns unit-length vectors for texts with content words', async () => {
    const vectors = await createLocalEmbedder().embed([
      'x',
      'A fairly long sentence about hiking trails near the mountains and camping under the stars.',
      'Überraschung! Café crème, naïve façade',
      '東京 大阪 2024',
    ]);
    for (const vector of vectors) expect(norm(vector)).toBeCloseTo(1, 10);
  });

  it('documents that empty, punctuation-only and stop-word-only texts give the zero vector', async () => {
    const vectors = await createLocalEmbedder({ dimension: 32 }).embed([
      '',
      '  ?!... ',
      'The and of it was to',
    ]);
    for (const vector of vectors) {
      expect(vector).toHaveLength(32);
      expect(vector.every((value) => value === 0)).toBe(true);
    }
  });

  it('folds case and compatibility forms (NFKC) before hashing', async () => {
    const [plain, shouted, fullWidth] = await createLocalEmbedder().embed([
      'pottery class',
      'POTTERY CLASS',
      '\uff50\uff4f\uff54\uff54\uff45\uff52\uff59 class',
    ]);
    expect(shouted).toEqual(plain);
    expect(fullWidth).toEqual(plain);
  });

  it('ignores stop words', async () => {
    const [bare, padded] = await createLocalEmbedder().embed(['camping trip', 'the camping trip was to the']);
    expect(padded).toEqual(bare);
  });

  it('places related texts closer than unrelated ones', async () => {
    const [query, related, variant, unrelated] = await createLocalEmbedder().embed([
      'When did Melanie paint the sunrise?',
      'Melanie painted a sunrise over the lake last year.',
      'painting sunrises',
      'Caroline researched adoption agencies for her family.',
    ]);
    const relatedScore = cosine(query!, related!);
    const variantScore = cosine(query!, variant!);
    const unrelatedScore = cosine(query!, unrelated!);
    expect(relatedScore).toBeGreaterThan(unrelatedScore + 0.2);
    // Character trigrams connect word forms that share a stem.
    expect(variantScore).toBeGreaterThan(unrelatedScore);
    expect(relatedScore).toBeGreaterThanOrEqual(LOCAL_HASH_MIN_COSINE);
  });

  it('is lexical: a paraphrase without shared words or stems scores near zero', async () => {
    const [a, b] = await createLocalEmbedder().embed(['automobile', 'car']);
    expect(Math.abs(cosine(a!, b!))).toBeLessThan(0.2);
  });

  it('exposes a profile whose id names the version and the dimension', () => {
    expect(createLocalEmbedder().profile).toEqual({
      id: 'powercontext.local-hash.v2@1024',
      dimension: 1024,
      normalization: 'l2',
      minCosine: LOCAL_HASH_MIN_COSINE,
      representation: 'lexical',
    });
    expect(createLocalEmbedder({ dimension: 1024 }).profile.id).toBe('powercontext.local-hash.v2@1024');
    expect(LOCAL_HASH_MIN_COSINE).toBe(0.3);
  });

  it('accepts the dimension bounds 16 and 4096', async () => {
    const [small] = await createLocalEmbedder({ dimension: 16 }).embed(['tiny']);
    const [large] = await createLocalEmbedder({ dimension: 4096 }).embed(['huge']);
    expect(small).toHaveLength(16);
    expect(large).toHaveLength(4096);
  });

  it.each([0, 15, 4097, 100.5, Number.NaN, Number.POSITIVE_INFINITY, -256])(
    'rejects dimension %s with a ValidationError on field "dimension"',
    (dimension) => {
      let thrown: unknown;
      try {
        createLocalEmbedder({ dimension });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ValidationError);
      expect(PowerContextError.isInstance(thrown) && thrown.code).toBe('invalid_request');
      expect((thrown as ValidationError).issues).toEqual([
        { field: 'dimension', rule: 'must be an integer from 16 to 4096' },
      ]);
    },
  );

  it('rejects with the abort reason when the signal is already aborted', async () => {
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    controller.abort(reason);
    await expect(createLocalEmbedder().embed(['text'], { signal: controller.signal })).rejects.toBe(reason);
  });
});
