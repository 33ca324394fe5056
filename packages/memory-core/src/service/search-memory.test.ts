import { describe, expect, it } from 'vitest';
import { chooseMode } from './search-memory.js';

describe('chooseMode', () => {
  it('auto is hybrid with a complete vector index and fts without one', () => {
    expect(chooseMode('auto', true)).toBe('hybrid');
    expect(chooseMode('auto', false)).toBe('fts');
  });
  it('explicit modes are kept when capable', () => {
    expect(chooseMode('fts', false)).toBe('fts');
    expect(chooseMode('vector', true)).toBe('vector');
    expect(chooseMode('hybrid', true)).toBe('hybrid');
  });
  it('explicit vector modes without the index are a typed error naming the capability', () => {
    for (const mode of ['vector', 'hybrid'] as const) {
      expect(() => chooseMode(mode, false, 4)).toThrow(
        expect.objectContaining({ code: 'capability_unavailable', capability: 'vector_index' }),
      );
    }
  });
});
