import { createHash } from 'node:crypto';
import { assertEmbeddableTexts } from '../domain/embeddable-texts.js';
import type { Embedder, EmbeddingProfile, EmbedOptions } from '../ports/embedder.port.js';
import { analyze } from './simple-analyzer.js';

export interface FakeEmbedderOptions {
  profile?: Partial<EmbeddingProfile>;
  /** Throw this on every call (or on calls where it returns an error) to test failure paths. */
  failWith?: Error | ((texts: readonly string[]) => Error | undefined);
}

/** Deterministic bag-of-words embedder for tests: each word hashed to one dimension, L2-normalised. */
export function createFakeEmbedder(options: FakeEmbedderOptions = {}): Embedder & { calls: number } {
  const profile: EmbeddingProfile = {
    id: 'test.bag-of-words.v1',
    dimension: 64,
    normalization: 'l2',
    minCosine: 0,
    ...options.profile,
  };
  const embedder = {
    profile,
    calls: 0,
    async embed(texts: readonly string[], embedOptions: EmbedOptions = {}) {
      assertEmbeddableTexts(texts);
      embedOptions.signal?.throwIfAborted();
      embedder.calls += 1;
      const failure = typeof options.failWith === 'function' ? options.failWith(texts) : options.failWith;
      if (failure) throw failure;
      return texts.map((text) => bagOfWords(text, profile.dimension));
    },
  };
  return embedder;
}

function bagOfWords(text: string, dimension: number): number[] {
  const vector = new Array<number>(dimension).fill(0);
  for (const token of analyze(text)) {
    const slot = createHash('sha1').update(token).digest().readUInt32BE(0) % dimension;
    vector[slot] = (vector[slot] ?? 0) + 1;
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((value) => value / norm);
}
