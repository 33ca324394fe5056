export { createLocalEmbedder, type LocalEmbedderOptions } from './local-embedder.js';
export {
  LOCAL_HASH_DEFAULT_DIMENSION,
  LOCAL_HASH_MAX_DIMENSION,
  LOCAL_HASH_MIN_COSINE,
  LOCAL_HASH_MIN_DIMENSION,
  localHashProfile,
} from './local-hash-profile.js';
