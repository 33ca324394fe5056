/** Identity of a vector space. Vectors of different profiles are never compared. */
export interface EmbeddingProfile {
  /** Versioned id, e.g. `powercontext.local-hash.v2@1024` or `openai:text-embedding-3-small@1536`. */
  id: string;
  dimension: number;
  normalization: 'l2' | 'none';
  /**
   * Vector-channel admission: the lowest cosine similarity a candidate may have. It belongs to the
   * profile because score distributions differ: 0.3 suits neural embeddings, a lexical hash much less.
   */
  minCosine: number;
  /**
   * What the vectors stand for: `lexical` for hashed word features (the vector channel then matches
   * words, like a second lexical index, and finds nothing by meaning), `semantic` for a model that
   * places texts of similar meaning close together. Unset means semantic. Tool descriptions follow it.
   */
  representation?: 'lexical' | 'semantic';
}

export interface EmbedOptions {
  signal?: AbortSignal;
}

/** Turns texts into vectors of the profile's dimension, in input order. */
export interface Embedder {
  readonly profile: EmbeddingProfile;
  embed(texts: readonly string[], options?: EmbedOptions): Promise<number[][]>;
}
