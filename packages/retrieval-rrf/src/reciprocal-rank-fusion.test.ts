import type { ChannelCandidate } from '@powercontext/memory-core';
import { describe, expect, it } from 'vitest';
import { fuseReciprocalRank } from './reciprocal-rank-fusion.js';

const candidate = (id: string, rank: number, version = 1): ChannelCandidate => ({
  entryId: id,
  entryVersionId: `${id}-v${version}`,
  rank,
  score: 1 / rank,
});

describe('fuseReciprocalRank', () => {
  it('sums 1/(k + rank) over channels and records each channel rank', () => {
    const hits = fuseReciprocalRank(
      { fts: [candidate('a', 1), candidate('b', 2)], vector: [candidate('b', 1)] },
      10,
    );
    expect(hits.map((h) => h.entryId)).toEqual(['b', 'a']);
    expect(hits[0]).toMatchObject({
      entryId: 'b',
      entryVersionId: 'b-v1',
      matchedBy: ['fts', 'vector'],
      channelRanks: { fts: 2, vector: 1 },
      channelScores: { fts: 1 / 2, vector: 1 },
    });
    expect(hits[0]!.score).toBeCloseTo(1 / 62 + 1 / 61, 12);
    expect(hits[1]!.score).toBeCloseTo(1 / 61, 12);
  });
  it('breaks equal scores by identity, whatever the input order', () => {
    const one = fuseReciprocalRank({ fts: [candidate('z', 1)], vector: [candidate('m', 1)] }, 10);
    const two = fuseReciprocalRank({ fts: [candidate('m', 1)], vector: [candidate('z', 1)] }, 10);
    expect(one.map((h) => h.entryId)).toEqual(['m', 'z']);
    expect(two.map((h) => h.entryId)).toEqual(['m', 'z']);
    const versions = fuseReciprocalRank({ fts: [candidate('m', 1, 2)], vector: [candidate('m', 1, 1)] }, 10);
    expect(versions.map((h) => h.entryVersionId)).toEqual(['m-v1', 'm-v2']);
  });
  it('weights each channel’s reciprocal ranks', () => {
    const hits = fuseReciprocalRank({ fts: [candidate('a', 2)], vector: [candidate('b', 1)] }, 10, 60, {
      fts: 1,
      vector: 0.1,
    });
    expect(hits.map((h) => h.entryId)).toEqual(['a', 'b']);
    expect(hits[1]!.score).toBeCloseTo(0.1 / 61, 12);
  });
  it('truncates to the limit and handles empty channels', () => {
    const many = Array.from({ length: 5 }, (_, i) => candidate(`e${i}`, i + 1));
    expect(fuseReciprocalRank({ fts: many }, 3)).toHaveLength(3);
    expect(fuseReciprocalRank({}, 3)).toEqual([]);
  });
});
