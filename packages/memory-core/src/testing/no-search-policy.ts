import { PLAIN_LEXICAL_PROJECTION } from '../domain/lexical-projection.js';
import type { RetrievalPolicy } from '../ports/retrieval-policy.port.js';

const refuse = (): never => {
  throw new Error('this retrieval policy is for write-path tests only; pass a real policy to search');
};

/** A retrieval policy for tests that never search: any search through it fails loudly. */
export const noSearchPolicy: RetrievalPolicy = {
  id: 'test.no-search.v1',
  bm25: { k1: 1.2, b: 0.75, delta: 0 },
  lexicalProjection: PLAIN_LEXICAL_PROJECTION,
  channels: [],
  channelFetchLimit: refuse,
  admit: refuse,
  fuse: refuse,
};
