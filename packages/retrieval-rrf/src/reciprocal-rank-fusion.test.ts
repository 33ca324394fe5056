import type { ChannelCandidate, FusedCandidate } from '@powercontext/memory-core';
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

/**
 * The two-channel fusion of RFC 0002 as it was written before channels became a port (23b9583),
 * kept here unchanged as the reference the N-list fusion must reproduce for fts and vector.
 */
function twoChannelReference(
  channels: { fts?: readonly ChannelCandidate[]; vector?: readonly ChannelCandidate[] },
  limit: number,
  k: number,
  weights: { fts: number; vector: number },
) {
  const fused = new Map<string, FusedCandidate>();
  for (const channel of ['fts', 'vector'] as const) {
    for (const c of channels[channel] ?? []) {
      const entry = fused.get(c.entryVersionId) ?? {
        entryId: c.entryId,
        entryVersionId: c.entryVersionId,
        score: 0,
        matchedBy: [],
        channelRanks: {},
        channelScores: {},
        channelContributions: {},
      };
      const contribution = weights[channel] / (k + c.rank);
      entry.score += contribution;
      entry.channelContributions![channel] = contribution;
      entry.matchedBy.push(channel);
      entry.channelRanks[channel] = c.rank;
      entry.channelScores[channel] = c.score;
      fused.set(c.entryVersionId, entry);
    }
  }
  const byId = (a: FusedCandidate, b: FusedCandidate) =>
    a.entryId < b.entryId ? -1 : a.entryId > b.entryId ? 1 : a.entryVersionId < b.entryVersionId ? -1 : 1;
  return [...fused.values()].sort((a, b) => b.score - a.score || byId(a, b)).slice(0, limit);
}

/** A deterministic pseudo-random list of a channel: overlapping ids, ranks 1..n, ties in the ids. */
function randomList(random: () => number, size: number): ChannelCandidate[] {
  const ids = new Set<number>();
  while (ids.size < size) ids.add(Math.floor(random() * size * 2));
  return [...ids].map((id, index) => candidate(`e${id % 17}-${id}`, index + 1));
}

function seeded(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('fuseReciprocalRank over N lists (RFC 0013)', () => {
  it('gives the two-channel fusion of RFC 0002 to the bit for fts and vector', () => {
    const random = seeded(7);
    for (let round = 0; round < 200; round += 1) {
      const lists = {
        fts: randomList(random, 1 + (round % 40)),
        vector: randomList(random, 1 + (round % 23)),
      };
      const weights = round % 2 === 0 ? { fts: 1, vector: 0.1 } : { fts: 1, vector: 1 };
      const limit = 1 + (round % 50);
      const ordered = fuseReciprocalRank(lists, limit, 60, weights, ['fts', 'vector']);
      expect(ordered).toEqual(twoChannelReference(lists, limit, 60, weights));
      expect(ordered.map((hit) => hit.score)).toEqual(
        twoChannelReference(lists, limit, 60, weights).map((hit) => hit.score),
      );
      // The default order is the weights' order: fts, then vector.
      expect(fuseReciprocalRank({ vector: lists.vector, fts: lists.fts }, limit, 60, weights)).toEqual(
        ordered,
      );
    }
  });

  it('sums every channel in the fusion order and records each channel that found a hit', () => {
    const hits = fuseReciprocalRank(
      {
        graph: [candidate('b', 1)],
        fts: [candidate('a', 1), candidate('b', 3)],
        entity: [candidate('b', 2), candidate('c', 1)],
      },
      10,
      60,
      { fts: 1, vector: 0.1, entity: 1, graph: 0.5 },
      ['fts', 'vector', 'entity', 'graph'],
    );
    expect(hits.map((hit) => hit.entryId)).toEqual(['b', 'a', 'c']);
    expect(hits[0]).toMatchObject({
      matchedBy: ['fts', 'entity', 'graph'],
      channelRanks: { fts: 3, entity: 2, graph: 1 },
      channelContributions: { fts: 1 / 63, entity: 1 / 62, graph: 0.5 / 61 },
    });
    expect(hits[0]!.score).toBe(1 / 63 + 1 / 62 + 0.5 / 61);
  });

  it('refuses a list of a channel it has no weight for', () => {
    expect(() => fuseReciprocalRank({ recency: [candidate('a', 1)] }, 10)).toThrow(
      'no RRF weight for the channel "recency"',
    );
    expect(fuseReciprocalRank({ recency: [] }, 10)).toEqual([]);
  });
});
