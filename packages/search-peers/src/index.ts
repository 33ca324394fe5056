import { createLocalEmbedder } from '@powercontext/embedder-local';
import { createMiniSearchPeer } from './minisearch-peer.js';
import { createOramaFullTextPeer, createOramaHybridPeer } from './orama-peer.js';
import type { PeerSystem } from './peer-system.js';

export { normalizeEnglishTerm, tokenizeEnglish } from './english-analyzer.js';
export { createMiniSearchPeer } from './minisearch-peer.js';
export { createOramaFullTextPeer, createOramaHybridPeer } from './orama-peer.js';
export type { PeerDocument, PeerSearchHit, PeerSystem } from './peer-system.js';

/** The peer systems' names and modes, in the order {@link createPeerSystems} returns them. */
export const PEER_SYSTEMS = [
  { system: 'minisearch', mode: 'fts' },
  { system: 'orama', mode: 'fts' },
  { system: 'orama', mode: 'hybrid' },
] as const;

/**
 * Fresh, empty indexes of every peer system: MiniSearch (BM25+), Orama full text, and Orama hybrid
 * over the vectors of the product's default local embedder (default dimension, as the runtime
 * creates it). Nothing is shared between calls.
 */
export function createPeerSystems(): PeerSystem[] {
  return [createMiniSearchPeer(), createOramaFullTextPeer(), createOramaHybridPeer(createLocalEmbedder())];
}
