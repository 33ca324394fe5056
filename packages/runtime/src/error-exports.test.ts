import * as core from '@powercontext/memory-core';
import { InMemoryMemoryStore } from '@powercontext/memory-core/testing';
import { describe, expect, it } from 'vitest';
import * as runtime from './index.js';

describe('@powercontext/runtime error exports', () => {
  it('re-exports every error class of memory-core, as the same class', () => {
    const coreErrors = Object.entries(core).filter(
      ([name, value]) => typeof value === 'function' && name.endsWith('Error'),
    );
    expect(coreErrors.length).toBeGreaterThan(10);
    const exported = new Map(Object.entries(runtime));
    for (const [name, value] of coreErrors) expect(exported.get(name), name).toBe(value);
  });

  it('lets a caller catch bad input with the classes imported from the runtime', async () => {
    const rt = await runtime.createRuntime({ env: {}, store: new InMemoryMemoryStore() });
    try {
      const search = rt.memory.forScope('project').search({ query: 'deploy', limit: 0 });
      await expect(search).rejects.toBeInstanceOf(runtime.ValidationError);
      await expect(search).rejects.toBeInstanceOf(runtime.PowerContextError);
      await expect(search).rejects.toMatchObject({ code: 'invalid_request' });
    } finally {
      await rt.close();
    }
  });
});
