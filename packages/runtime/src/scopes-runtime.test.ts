import { createScriptedReranker, InMemoryMemoryStore } from '@powercontext/memory-core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from './create-runtime.js';
import { loadRuntimeConfig } from './runtime-config.js';

const runtimes: Runtime[] = [];
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((runtime) => runtime.close()));
});

/** Two scopes on one runtime, `user` written once and `project` twice. */
async function twoScopes(options: Parameters<typeof createRuntime>[0] = {}) {
  const reranker = createScriptedReranker();
  const runtime = await createRuntime({ store: new InMemoryMemoryStore(), reranker, ...options });
  runtimes.push(runtime);
  await runtime.memory.forScope('user').remember({
    entries: [{ text: 'The user drinks green tea.' }, { text: 'The user cycles to work.' }],
  });
  await runtime.memory
    .forScope('project')
    .remember({ entries: [{ text: 'The project tea fund is empty.' }] });
  await runtime.memory
    .forScope('project')
    .remember({ entries: [{ text: 'The project ships on Friday.', sources: [{ sourceId: 'standup' }] }] });
  return { runtime, reranker };
}

describe('runtime: search of several scopes (issue 29)', () => {
  it('reads POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_MULTI_SCOPE: skip by default, or rerank', () => {
    expect(loadRuntimeConfig({}).rerank.multiScope).toBe('skip');
    const value = { POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_MULTI_SCOPE: 'rerank' };
    expect(loadRuntimeConfig(value).rerank.multiScope).toBe('rerank');
    expect(() =>
      loadRuntimeConfig({ POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_MULTI_SCOPE: 'always' }),
    ).toThrow(
      expect.objectContaining({
        code: 'configuration_error',
        setting: 'POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_MULTI_SCOPE',
      }),
    );
  });

  it('skips the reranker by default; the setting or the runtime option makes it rerank', async () => {
    const skipping = await twoScopes();
    const skipped = await skipping.runtime.memory.search(['user', 'project'], { query: 'tea', mode: 'fts' });
    expect(skipped.multiScope).toEqual({ scopeCount: 2, rerank: 'skipped' });
    expect(skipped.trace).toBeUndefined();
    expect(skipping.reranker.calls).toHaveLength(0);
    expect(skipped.scopes.map((scope) => [scope.scopeId, scope.memory?.revision])).toEqual([
      ['user', 1],
      ['project', 2],
    ]);

    const bySetting = await twoScopes({
      env: { POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_MULTI_SCOPE: 'rerank' },
    });
    const reranked = await bySetting.runtime.memory.search(['user', 'project'], {
      query: 'tea',
      mode: 'fts',
    });
    expect(reranked.multiScope?.rerank).toBe('reranked');
    expect(reranked.trace?.candidates.map((hit) => hit.citation.scopeId).sort()).toEqual(['project', 'user']);

    const byOption = await twoScopes({ multiScopeRerank: 'rerank' });
    const optioned = await byOption.runtime.memory.search(['user', 'project'], { query: 'tea', mode: 'fts' });
    expect(optioned.multiScope?.rerank).toBe('reranked');
  });

  it('reads each scope at least at its own min revision, and refuses one not written yet', async () => {
    const { runtime } = await twoScopes();
    const read = await runtime.memory.search(
      ['user', 'project'],
      { query: 'tea', mode: 'fts' },
      { minRevisions: { user: 1, project: 2 } },
    );
    expect(read.hits).toHaveLength(2);
    await expect(
      runtime.memory.search(['user', 'project'], { query: 'tea' }, { minRevisions: { user: 1, project: 3 } }),
    ).rejects.toMatchObject({ code: 'revision_not_visible', scopeId: 'project', minRevision: 3 });
    await expect(
      runtime.memory.search(['user'], { query: 'tea' }, { minRevisions: { project: 1 } }),
    ).rejects.toMatchObject({
      code: 'invalid_request',
      issues: [{ field: 'minRevisions.project', rule: 'must name one of the scopes searched' }],
    });
    await expect(
      runtime.memory.search(['user'], { query: 'tea' }, { minRevisions: { user: 0 } }),
    ).rejects.toMatchObject({
      issues: [{ field: 'minRevisions.user', rule: 'must be an integer of at least 1' }],
    });
  });

  it('prepares one context from several scopes, each chunk citing its own scope and revision', async () => {
    const { runtime } = await twoScopes();
    const prepared = await runtime.memory.prepareContext(['user', 'project'], { query: 'tea', mode: 'fts' });
    const refs = prepared.assembly.selected.map((chunk) => chunk.memoryRef);
    expect(refs.map((ref) => [ref.scopeId, ref.revision]).sort()).toEqual([
      ['project', 2],
      ['user', 1],
    ]);
    for (const chunk of prepared.assembly.selected) {
      const hit = prepared.hits.find(
        (candidate) => candidate.citation.entryVersionId === chunk.entryVersionId,
      )!;
      expect(chunk.memoryRef).toEqual({
        scopeId: hit.citation.scopeId,
        artifactId: hit.citation.artifactId,
        revision: hit.citation.revision,
      });
    }
  });
});
