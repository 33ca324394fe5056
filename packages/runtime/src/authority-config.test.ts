import { InMemoryMemoryStore } from '@powercontext/memory-core/testing';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from './configuration-error.js';
import { createRuntime } from './create-runtime.js';
import { loadRuntimeConfig } from './runtime-config.js';

const PINNED = 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_AUTHORITY_PINNED_BOOST';
const TAGS = 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_AUTHORITY_TAG_WEIGHTS';

function refusal(env: Record<string, string>): ConfigurationError {
  try {
    loadRuntimeConfig(env);
  } catch (error) {
    if (error instanceof ConfigurationError) return error;
    throw error;
  }
  throw new Error('the configuration was accepted');
}

describe('authority settings', () => {
  it('read the pinned boost and tag=weight pairs, tags folded and sorted', () => {
    expect(
      loadRuntimeConfig({ [PINNED]: '0.5', [TAGS]: ' Urgent = 2 , billing=0.25,idle=0' }).retrieval.authority,
    ).toEqual({ pinnedBoost: 0.5, tagWeights: { billing: 0.25, urgent: 2 } });
  });

  it('refuse bad values with a typed error naming the setting and the rule', () => {
    expect(refusal({ [PINNED]: '-1' })).toMatchObject({
      code: 'configuration_error',
      setting: PINNED,
      message: `${PINNED}: must be a number within 0..10`,
    });
    expect(refusal({ [PINNED]: '10.5' }).message).toBe(`${PINNED}: must be a number within 0..10`);
    expect(refusal({ [TAGS]: 'billing' }).message).toBe(
      `${TAGS}: must be tag=weight pairs separated by commas, each weight within 0..10; "billing" is not one`,
    );
    expect(refusal({ [TAGS]: 'billing=high' }).setting).toBe(TAGS);
    expect(refusal({ [TAGS]: 'billing=11' }).message).toBe(
      `${TAGS}: "billing": tag weight must be within 0..10`,
    );
    expect(refusal({ [TAGS]: 'billing=1,billing=2' }).message).toBe(`${TAGS}: names the tag "billing" twice`);
    expect(refusal({ [TAGS]: 'Billing=1,billing=2' }).message).toContain('is given twice');
    expect(refusal({ [TAGS]: `${'x'.repeat(65)}=1` }).message).toContain('tag must be at most 64 characters');
  });

  it('name the retrieval policy: exactly today’s id at 0, the weights in it otherwise', async () => {
    const today = await createRuntime({ store: new InMemoryMemoryStore(), env: {} });
    const zero = await createRuntime({
      store: new InMemoryMemoryStore(),
      env: { [PINNED]: '0', [TAGS]: 'a=0' },
    });
    const boosted = await createRuntime({
      store: new InMemoryMemoryStore(),
      env: { [PINNED]: '1', [TAGS]: 'a=0.5' },
    });
    const option = await createRuntime({
      store: new InMemoryMemoryStore(),
      env: { [PINNED]: '1' },
      authority: { tagWeights: { B: 3 } },
    });
    try {
      expect(zero.capabilities().retrievalPolicyId).toBe(today.capabilities().retrievalPolicyId);
      expect(boosted.capabilities().retrievalPolicyId).toBe(
        `${today.capabilities().retrievalPolicyId.slice(0, -1)};authority=pinned:1,tags:{"a":0.5})`,
      );
      // The runtime option replaces the settings.
      expect(option.capabilities().retrievalPolicyId).toContain(';authority=pinned:0,tags:{"b":3})');
    } finally {
      await Promise.all([today.close(), zero.close(), boosted.close(), option.close()]);
    }
  });

  it('refuse a bad runtime option before anything opens', async () => {
    await expect(
      createRuntime({ store: new InMemoryMemoryStore(), env: {}, authority: { pinnedBoost: 20 } }),
    ).rejects.toMatchObject({
      setting: 'authority.pinnedBoost',
      message: 'authority.pinnedBoost: pinnedBoost must be within 0..10',
    });
  });
});
