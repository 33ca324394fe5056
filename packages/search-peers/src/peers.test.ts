import { describe, expect, it } from 'vitest';

import { normalizeEnglishTerm, tokenizeEnglish } from './english-analyzer.js';
import { createPeerSystems, PEER_SYSTEMS } from './index.js';
import type { PeerDocument, PeerSystem } from './peer-system.js';

const UNITS: PeerDocument[] = [
  {
    unitId: 'D1:1',
    text: 'Caroline: I went to a support group for the first time yesterday.',
  },
  {
    unitId: 'D1:2',
    text: 'Melanie: That sounds brave! I painted a sunrise over the lake last week.',
  },
  { unitId: 'D1:3', text: 'Caroline: The counseling workshop was really helpful.' },
  { unitId: 'D2:1', text: 'Melanie: My kids and I went camping near the mountains.' },
  { unitId: 'D2:2', text: "Caroline: I'm reading a novel about an adoption agency." },
];

async function indexedPeers(): Promise<PeerSystem[]> {
  const peers = createPeerSystems();
  for (const peer of peers) await peer.index(UNITS);
  return peers;
}

function peerNamed(peers: PeerSystem[], system: string, mode: string): PeerSystem {
  const peer = peers.find((candidate) => candidate.system === system && candidate.mode === mode);
  if (!peer) throw new Error(`no peer ${system}/${mode}`);
  return peer;
}

describe('createPeerSystems', () => {
  it('returns MiniSearch fts, Orama fts and Orama hybrid, fresh for every call', async () => {
    const first = createPeerSystems();
    expect(first.map((peer) => `${peer.system}/${peer.mode}`)).toEqual([
      'minisearch/fts',
      'orama/fts',
      'orama/hybrid',
    ]);
    expect(first.map(({ system, mode }) => ({ system, mode }))).toEqual(PEER_SYSTEMS);
    await first[0]?.index(UNITS);
    const second = createPeerSystems();
    expect(await second[0]?.search('camping', 5)).toEqual([]);
  });

  it('each peer ranks the unit with the exact query word first', async () => {
    for (const peer of await indexedPeers()) {
      const hits = await peer.search('camping mountains', 3);
      expect(hits[0], `${peer.system}/${peer.mode}`).toEqual({ unitId: 'D2:1' });
    }
  });

  it('each peer returns at most k hits, best first, and none for k = 0', async () => {
    for (const peer of await indexedPeers()) {
      const hits = await peer.search('Caroline Melanie', 2);
      expect(hits.length, `${peer.system}/${peer.mode}`).toBeLessThanOrEqual(2);
      expect(hits.length).toBeGreaterThan(0);
      expect(await peer.search('Caroline', 0)).toEqual([]);
    }
  });

  it('each peer stems: "painting" finds the turn that says "painted"', async () => {
    for (const peer of await indexedPeers()) {
      const hits = await peer.search('painting', 5);
      expect(hits[0], `${peer.system}/${peer.mode}`).toEqual({ unitId: 'D1:2' });
    }
  });

  it('MiniSearch matches nothing for a query made of stop words only', async () => {
    const minisearch = peerNamed(await indexedPeers(), 'minisearch', 'fts');
    expect(await minisearch.search('what did I do about the', 10)).toEqual([]);
    expect(await minisearch.search("I'm the", 10)).toEqual([]);
  });

  it('MiniSearch matches whole words, not prefixes', async () => {
    const minisearch = peerNamed(await indexedPeers(), 'minisearch', 'fts');
    expect(await minisearch.search('camp', 10)).toEqual([{ unitId: 'D2:1' }]);
    expect(await minisearch.search('counsel', 10)).toEqual([{ unitId: 'D1:3' }]);
    expect(await minisearch.search('adopt', 10)).toEqual([{ unitId: 'D2:2' }]);
    expect(await minisearch.search('nov', 10)).toEqual([]);
  });

  it('Orama hybrid returns the unit sharing a word with the query', async () => {
    const hybrid = peerNamed(await indexedPeers(), 'orama', 'hybrid');
    const hits = await hybrid.search('which novel was she reading?', 5);
    expect(hits.map((hit) => hit.unitId)).toContain('D2:2');
    expect(hits[0]).toEqual({ unitId: 'D2:2' });
  });
});

describe('English analyzer (MiniSearch)', () => {
  it('splits on punctuation and keeps apostrophes inside words', () => {
    expect(tokenizeEnglish("Caroline's kids: don't stop!")).toEqual(["Caroline's", 'kids', "don't", 'stop']);
  });

  it('lower-cases, drops stop words and possessives, and stems', () => {
    expect(normalizeEnglishTerm('The')).toBeNull();
    expect(normalizeEnglishTerm('don\u2019t')).toBeNull();
    expect(normalizeEnglishTerm("Caroline's")).toBe(normalizeEnglishTerm('caroline'));
    expect(normalizeEnglishTerm('Painted')).toBe('paint');
    expect(normalizeEnglishTerm('painting')).toBe('paint');
  });
});
