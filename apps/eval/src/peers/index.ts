import { createPeerSystems } from '@powercontext/search-peers';
import type { PeerFactory, PeerSystem } from '../peer-system.js';

/**
 * The peer systems for one conversation, each a fresh, empty index (see
 * `@powercontext/search-peers`, shared with the benchmarks). The conversation id is not needed:
 * nothing is shared between conversations.
 */
export const createPeers: PeerFactory = async (_conversationId: string): Promise<PeerSystem[]> =>
  createPeerSystems();
