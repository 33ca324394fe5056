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
    expect(createRrfRetrievalPolicy().admitLexicalFallback).toBeTypeOf('function');
    const strict = createRrfRetrievalPolicy({ lexicalFallback: false });
    expect(strict.admitLexicalFallback).toBeUndefined();
    expect(strict.id).toContain('lexical_fallback=off');
  });

  it('refuses parameters outside their range', () => {
    expect(() => createRrfRetrievalPolicy({ bm25: { k1: -1 } })).toThrow('bm25.k1');
    expect(() => createRrfRetrievalPolicy({ bm25: { b: 2 } })).toThrow('bm25.b');
    expect(() => createRrfRetrievalPolicy({ contextWeights: [0] })).toThrow('contextWeights');
    expect(() => createRrfRetrievalPolicy({ channelWeights: { vector: 2 } })).toThrow(
      'channelWeights.vector',
    );
    expect(() => createRrfRetrievalPolicy({ contextWeights: Array(9).fill(0.1) })).toThrow('at most 8');
  });
});
