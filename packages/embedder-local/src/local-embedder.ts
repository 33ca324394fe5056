import { assertEmbeddableTexts, CpuSlice, type Embedder, type EmbedOptions } from '@powercontext/memory-core';
import { hashVector } from './hash-vector.js';
import { LOCAL_HASH_DEFAULT_DIMENSION, localHashProfile } from './local-hash-profile.js';

export interface LocalEmbedderOptions {
  /** Vector length, an integer from 16 to 4096. Default 1024. Part of the profile id. */
  dimension?: number;
}

/**
 * An embedder that needs no model and no network: deterministic feature hashing of words and
 * character trigrams. It is lexical, not semantic: texts are close when they share words or word
 * fragments ("embedder" / "embedding"), not when they mean the same thing in other words.
 * Texts without content words embed to the zero vector. Text with NUL (U+0000) or a lone surrogate
 * is refused with a ValidationError (`assertEmbeddableTexts`).
 */
export function createLocalEmbedder(options: LocalEmbedderOptions = {}): Embedder {
  const profile = localHashProfile(options.dimension ?? LOCAL_HASH_DEFAULT_DIMENSION);
  return {
    profile,
    async embed(texts: readonly string[], embedOptions: EmbedOptions = {}): Promise<number[][]> {
      assertEmbeddableTexts(texts);
      embedOptions.signal?.throwIfAborted();
      const vectors: number[][] = [];
      // Hashing a long text takes milliseconds: a batch takes turns with the process's other CPU work
      // (nextTurn), starting behind it, so a server embedding one tenant's texts keeps answering others.
      const slice = new CpuSlice(embedOptions.signal);
      await slice.yield();
      for (const text of texts) {
        if (slice.spent) await slice.yield();
        vectors.push(hashVector(text, profile.dimension));
      }
      return vectors;
    },
  };
}
