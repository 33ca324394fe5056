import { createLocalEmbedder } from '@powercontext/embedder-local';
import type { PeerFactory, PeerSystem } from '../peer-system.js';
import { createMiniSearchPeer } from './minisearch-peer.js';
import { createOramaFullTextPeer, createOramaHybridPeer } from './orama-peer.js';

export { createMiniSearchPeer } from './minisearch-peer.js';
export { createOramaFullTextPeer, createOramaHybridPeer } from './orama-peer.js';

/**
 * The peer systems for one conversation, each a fresh, empty index: MiniSearch (BM25+), Orama full
 * text, and Orama hybrid over the vectors of the product's default local embedder (default
 * dimension, as the runtime creates it). The conversation id is not needed: nothing is shared
 * between conversations.
 */
export const createPeers: PeerFactory = async (_conversationId: string): Promise<PeerSystem[]> => [
  createMiniSearchPeer(),
  createOramaFullTextPeer(),
  createOramaHybridPeer(createLocalEmbedder()),
];
