import { describe, expect, it } from 'vitest';
import { canonicalTurnId, repairEvidence } from './evidence.js';

const turns = new Set(['D1:3', 'D8:6', 'D9:17', 'D11:26', 'D30:5', 'D26:14', 'D26:34']);

describe('repairEvidence', () => {
  it('keeps well-formed ids as they are', () => {
    expect(repairEvidence(['D1:3', 'D8:6'], turns)).toEqual({
      ids: ['D1:3', 'D8:6'],
      unresolved: [],
      repaired: 0,
    });
  });

  it('splits two ids in one string', () => {
    expect(repairEvidence(['D8:6; D9:17'], turns)).toEqual({
      ids: ['D8:6', 'D9:17'],
      unresolved: [],
      repaired: 2,
    });
    expect(repairEvidence(['D26:14, D26:34'], turns).ids).toEqual(['D26:14', 'D26:34']);
  });

  it('removes a stray colon and zero padding when the result names a turn', () => {
    expect(repairEvidence(['D:11:26'], turns)).toEqual({ ids: ['D11:26'], unresolved: [], repaired: 1 });
    expect(repairEvidence(['D30:05'], turns)).toEqual({ ids: ['D30:5'], unresolved: [], repaired: 1 });
  });

  it('reports ids that name no turn, even after repair, and never guesses', () => {
    const result = repairEvidence(['D', 'D4:36', 'D1:03x', 'D2:05'], turns);
    expect(result.ids).toEqual([]);
    expect(result.unresolved).toEqual(['D', 'D4:36', 'D1:03x', 'D2:05']);
    expect(result.repaired).toBe(0);
  });

  it('deduplicates repeated ids, also across a repair', () => {
    const result = repairEvidence(['D1:3', 'D1:03', 'D1:3; D8:6'], turns);
    expect(result.ids).toEqual(['D1:3', 'D8:6']);
    expect(result.unresolved).toEqual([]);
  });

  it('handles an empty list and non-string values', () => {
    expect(repairEvidence([], turns)).toEqual({ ids: [], unresolved: [], repaired: 0 });
    expect(repairEvidence([42], turns).unresolved).toEqual(['42']);
  });
});

describe('canonicalTurnId', () => {
  it('normalizes turn-shaped pieces only', () => {
    expect(canonicalTurnId(' d:3:007 ')).toBe('D3:7');
    expect(canonicalTurnId('D12:1')).toBe('D12:1');
    expect(canonicalTurnId('S1:2')).toBeUndefined();
    expect(canonicalTurnId('D')).toBeUndefined();
  });
});
