import type { ChannelCandidate, EntryVersion } from '@powercontext/memory-core';
import { describe, expect, it } from 'vitest';
import { fuseReciprocalRank } from './reciprocal-rank-fusion.js';

const candidate = (id: string, rank: number): ChannelCandidate => ({
  version: { entryId: id, entryVersionId: `${id}-v1`, text: id } as EntryVersion,
  rank,
  score: 1 / rank,
});
const toHit = (c: ChannelCandidate) => ({
  citation: {
    artifactId: 'art',
    revision: 1,
    entryId: c.version.entryId,
    entryVersionId: c.version.entryVersionId,
  },
  entry: c.version,
  text: c.version.text,
});

describe('fuseReciprocalRank', () => {
  it('sums 1/(k + rank) over channels and records each channel rank', () => {
    const hits = fuseReciprocalRank(
      { fts: [candidate('a', 1), candidate('b', 2)], vector: [candidate('b', 1)] },
      10,
      toHit,
    );
    expect(hits.map((h) => h.citation.entryId)).toEqual(['b', 'a']);
    expect(hits[0]).toMatchObject({ matchedBy: ['fts', 'vector'], channelRanks: { fts: 2, vector: 1 } });
    expect(hits[0]!.score).toBeCloseTo(1 / 62 + 1 / 61, 12);
    expect(hits[1]!.score).toBeCloseTo(1 / 61, 12);
  });
  it('breaks equal scores by identity, whatever the input order', () => {
    const one = fuseReciprocalRank({ fts: [candidate('z', 1)], vector: [candidate('m', 1)] }, 10, toHit);
    const two = fuseReciprocalRank({ fts: [candidate('m', 1)], vector: [candidate('z', 1)] }, 10, toHit);
    expect(one.map((h) => h.citation.entryId)).toEqual(['m', 'z']);
    expect(two.map((h) => h.citation.entryId)).toEqual(['m', 'z']);
  });
  it('weights each channel’s reciprocal ranks', () => {
    const hits = fuseReciprocalRank(
      { fts: [candidate('a', 2)], vector: [candidate('b', 1)] },
      10,
      toHit,
      60,
      { fts: 1, vector: 0.1 },
    );
    expect(hits.map((h) => h.citation.entryId)).toEqual(['a', 'b']);
    expect(hits[1]!.score).toBeCloseTo(0.1 / 61, 12);
  });
  it('truncates to the limit and handles empty channels', () => {
    const many = Array.from({ length: 5 }, (_, i) => candidate(`e${i}`, i + 1));
    expect(fuseReciprocalRank({ fts: many }, 3, toHit)).toHaveLength(3);
    expect(fuseReciprocalRank({}, 3, toHit)).toEqual([]);
  });
});
