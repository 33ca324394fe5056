import { describe, expect, it } from 'vitest';
import { createRrfRetrievalPolicy, RRF_RETRIEVAL_POLICY_FAMILY } from './rrf-retrieval-policy.js';

describe('createRrfRetrievalPolicy: authority after fusion', () => {
  it('keeps exactly the id it had, and no authority step, when every weight is 0', () => {
    const zero = createRrfRetrievalPolicy({ authority: { pinnedBoost: 0, tagWeights: { billing: 0 } } });
    expect(zero.id).toBe(RRF_RETRIEVAL_POLICY_FAMILY);
    expect(zero.authority).toBeUndefined();
    const local = { channelWeights: { vector: 0.1 } };
    expect(createRrfRetrievalPolicy({ ...local, authority: {} }).id).toBe(createRrfRetrievalPolicy(local).id);
  });

  it('carries non-zero weights in its id, tags folded and sorted, weight-0 tags left out', () => {
    const policy = createRrfRetrievalPolicy({
      authority: { pinnedBoost: 0.5, tagWeights: { Urgent: 2, billing: 0.3, idle: 0 } },
    });
    expect(policy.id).toBe(
      `${RRF_RETRIEVAL_POLICY_FAMILY}(k1=0.8,b=0,delta=0.5;context=0.35,0.175;rrf_k=60;weights=1,1;fetch=4x32;lexical_fallback=on;authority=pinned:0.5,tags:{"billing":0.3,"urgent":2})`,
    );
    expect(policy.authority).toEqual({ pinnedBoost: 0.5, tagWeights: { billing: 0.3, urgent: 2 } });
    expect(createRrfRetrievalPolicy({ authority: { pinnedBoost: 1 } }).id).toContain(
      ';authority=pinned:1,tags:{}',
    );
  });

  it('refuses weights outside 0..10 and tags that break the tag rules, naming the field', () => {
    expect(() => createRrfRetrievalPolicy({ authority: { pinnedBoost: -1 } })).toThrow(
      'authority.pinnedBoost: pinnedBoost must be within 0..10',
    );
    expect(() => createRrfRetrievalPolicy({ authority: { pinnedBoost: Number.NaN } })).toThrow(RangeError);
    expect(() => createRrfRetrievalPolicy({ authority: { tagWeights: { billing: 11 } } })).toThrow(
      'authority.tagWeights.billing: tag weight must be within 0..10',
    );
    expect(() => createRrfRetrievalPolicy({ authority: { tagWeights: { ' ': 1 } } })).toThrow(
      'tag must contain a non-space character',
    );
    expect(() => createRrfRetrievalPolicy({ authority: { tagWeights: { Billing: 1, billing: 2 } } })).toThrow(
      'is given twice',
    );
  });
});
