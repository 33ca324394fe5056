import { describe, expect, it } from 'vitest';
import { createRrfRetrievalPolicy, RRF_RETRIEVAL_POLICY_FAMILY } from './rrf-retrieval-policy.js';

describe('createRrfRetrievalPolicy', () => {
  it('has the plain family id with the defaults and a derived one otherwise', () => {
    const defaults = createRrfRetrievalPolicy();
    expect(defaults.id).toBe(RRF_RETRIEVAL_POLICY_FAMILY);
    expect(defaults.bm25).toEqual({ k1: 0.8, b: 0, delta: 0.5 });
    expect(defaults.lexicalProjection).toEqual({
      id: 'powercontext.lexical.neighbours.v1(0.35,0.175)',
      contextWeights: [0.35, 0.175],
    });
    const plain = createRrfRetrievalPolicy({ contextWeights: [] });
    expect(plain.id).toBe(
      `${RRF_RETRIEVAL_POLICY_FAMILY}(k1=0.8,b=0,delta=0.5;context=;rrf_k=60;weights=1,1;fetch=4x32;lexical_fallback=on)`,
    );
    expect(plain.lexicalProjection.id).toBe('powercontext.lexical.neighbours.v1()');
    expect(createRrfRetrievalPolicy({ bm25: { b: 0.75 } }).id).toContain('b=0.75');
    expect(createRrfRetrievalPolicy({ channelWeights: { vector: 0.1 } }).id).toContain('weights=1,0.1');
    expect(createRrfRetrievalPolicy({ id: 'mine.v1', contextWeights: [0.5] }).id).toBe('mine.v1');
  });

  it('falls back on lexical admission by default (v3), and the v2 rule without it has its own id', () => {
    expect(RRF_RETRIEVAL_POLICY_FAMILY).toBe('powercontext.retrieval.rrf.v3');
    expect(createRrfRetrievalPolicy().admitFallback).toBeTypeOf('function');
    const strict = createRrfRetrievalPolicy({ lexicalFallback: false });
    expect(strict.admitFallback).toBeUndefined();
    expect(strict.id).toContain('lexical_fallback=off');
  });

  it('fuses fts and vector by default, and any listed channels in their order, with ids that say so', () => {
    const defaults = createRrfRetrievalPolicy();
    expect(defaults.channels).toEqual(['fts', 'vector']);
    const local = createRrfRetrievalPolicy({ channelWeights: { vector: 0.1 } });
    // The two-channel ids stay what they were before channels became a port (their answers did too).
    expect(local.id).toBe(
      `${RRF_RETRIEVAL_POLICY_FAMILY}(k1=0.8,b=0,delta=0.5;context=0.35,0.175;rrf_k=60;weights=1,0.1;fetch=4x32;lexical_fallback=on)`,
    );
    const four = createRrfRetrievalPolicy({
      channels: ['fts', 'vector', 'entity', 'graph'],
      channelWeights: { vector: 0.1, graph: 0.5 },
    });
    expect(four.channels).toEqual(['fts', 'vector', 'entity', 'graph']);
    expect(four.id).toBe(
      `${RRF_RETRIEVAL_POLICY_FAMILY}(k1=0.8,b=0,delta=0.5;context=0.35,0.175;rrf_k=60;weights=1,0.1;fetch=4x32;lexical_fallback=on;channels=fts:1,vector:0.1,entity:1,graph:0.5)`,
    );
    expect(createRrfRetrievalPolicy({ channels: ['fts', 'vector', 'entity'] }).id).not.toBe(
      createRrfRetrievalPolicy({ channels: ['fts', 'vector', 'graph'] }).id,
    );
  });

  it('admits by channel name: the term rule for fts, the result’s minScore for the others', () => {
    const policy = createRrfRetrievalPolicy({ channels: ['fts', 'vector', 'entity'] });
    const candidate = (id: string, rank: number, score: number, matchedTerms?: number) => ({
      entryId: id,
      entryVersionId: `${id}-v1`,
      rank,
      score,
      ...(matchedTerms === undefined ? {} : { matchedTerms }),
    });
    const lexical = [candidate('a', 1, 9, 1), candidate('b', 2, 8, 3)];
    expect(
      policy.admit('fts', { candidates: lexical, queryTermCount: 5 }).map((c) => [c.entryId, c.rank]),
    ).toEqual([['b', 1]]);
    expect(
      policy.admitFallback?.('fts', { candidates: lexical, queryTermCount: 5 })?.map((c) => c.entryId),
    ).toEqual(['a']);
    const vectors = [candidate('a', 1, 0.9), candidate('b', 2, 0.2)];
    expect(policy.admit('vector', { candidates: vectors, minScore: 0.3 }).map((c) => c.entryId)).toEqual([
      'a',
    ]);
    expect(policy.admitFallback?.('vector', { candidates: vectors, minScore: 0.3 })).toBeUndefined();
    const entities = [candidate('c', 1, 2.5, 1), candidate('d', 2, 0.1, 1)];
    expect(policy.admit('entity', { candidates: entities, queryTermCount: 4 })).toEqual(entities);
  });

  it('refuses parameters outside their range', () => {
    expect(() => createRrfRetrievalPolicy({ bm25: { k1: -1 } })).toThrow('bm25.k1');
    expect(() => createRrfRetrievalPolicy({ bm25: { b: 2 } })).toThrow('bm25.b');
    expect(() => createRrfRetrievalPolicy({ contextWeights: [0] })).toThrow('contextWeights');
    expect(() => createRrfRetrievalPolicy({ channelWeights: { vector: 2 } })).toThrow(
      'channelWeights.vector',
    );
    expect(() => createRrfRetrievalPolicy({ contextWeights: Array(9).fill(0.1) })).toThrow('at most 8');
    expect(() => createRrfRetrievalPolicy({ channels: [] })).toThrow('at least one channel');
    expect(() => createRrfRetrievalPolicy({ channels: ['fts', 'fts'] })).toThrow('named twice');
    expect(() => createRrfRetrievalPolicy({ channels: ['fts', 'Entity;x'] })).toThrow('not a channel name');
    expect(() =>
      createRrfRetrievalPolicy({ channels: ['fts', 'vector', 'graph'], channelWeights: { graph: 1.5 } }),
    ).toThrow('channelWeights.graph');
  });
});
