import type { z } from '@hono/zod-openapi';
import { RerankEvidenceError } from '@powercontext/context-assembly';
import { createScriptedReranker, InMemoryMemoryStore } from '@powercontext/memory-core/testing';
import { type CreateRuntimeOptions, createRuntime, type Runtime } from '@powercontext/runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { hashApiKey, parseApiKeys } from '../auth/api-keys.js';
import { createTestApp } from '../testing-support/in-process-app.js';
import { secretOf } from '../testing-support/test-keys.js';
import { prepareContextResponseSchema } from './schemas/context-schemas.js';
import type { rememberResponseSchema } from './schemas/memory-schemas.js';

type PrepareResponse = z.infer<typeof prepareContextResponseSchema>;
type RememberResponse = z.infer<typeof rememberResponseSchema>;

const ALL = secretOf('alpha-all');
const READER = secretOf('alpha-reader');
const BETA = secretOf('beta-all');
const PREPARE = '/v1/context/prepare';
const RRF_POLICY = /^powercontext\.retrieval\.rrf\./u;

const runtimes: Runtime[] = [];
afterAll(async () => {
  await Promise.all(runtimes.map((runtime) => runtime.close()));
});

async function runtimeWith(options: Omit<CreateRuntimeOptions, 'env'> = {}): Promise<Runtime> {
  const runtime = await createRuntime({ env: {}, store: new InMemoryMemoryStore(), ...options });
  runtimes.push(runtime);
  return runtime;
}

const NOTES = [
  { text: 'The deploy freeze starts on Friday at noon.', source: 'standup-12' },
  { text: 'The deploy freeze starts on Friday at noon sharp.', source: 'standup-13' },
  { text: 'Deploys on Friday need a second review from the platform team.', source: 'standup-12' },
  { text: 'The deploy pipeline <b>skips</b> canaries & smoke tests for hotfixes.', source: 'runbook' },
];

/** An app over a fresh runtime whose scope alpha holds NOTES (each citing its source). */
async function appWithNotes(options: Omit<CreateRuntimeOptions, 'env'> = {}) {
  const testApp = createTestApp(await runtimeWith(options));
  const written = await testApp.call<RememberResponse>(
    '/v1/memory/remember',
    {
      scope_id: 'alpha',
      entries: NOTES.map(({ text, source }) => ({ text, sources: [{ source_id: source }] })),
    },
    { key: ALL },
  );
  expect(written.status).toBe(200);
  return { ...testApp, written: written.json };
}

const escaped = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

describe('POST /v1/context/prepare (in process)', () => {
  it('packs the search evidence into a framed context, with citations and every omission explained', async () => {
    const { call, written } = await appWithNotes();
    const response = await call<PrepareResponse>(
      PREPARE,
      { scope_id: 'alpha', query: 'deploy Friday', limit: 10, mode: 'fts' },
      { key: READER },
    );
    expect(response.status).toBe(200);
    const body = response.json;
    // The strict response schema re-serializes the answer unchanged: no field beyond the documented ones.
    expect(JSON.stringify(prepareContextResponseSchema.parse(body))).toBe(response.text);
    expect(body.memory).toEqual(written.memory);
    expect(body.mode).toBe('fts');
    expect(body.contract).toEqual({
      version: 'powercontext.assembly.contract.v1',
      token_budget: 2000,
      max_chunks: 10,
      per_source_cap: 10,
      duplicates: {
        exact: 'powercontext.assembly.exact-duplicate.sha256-utf8.v1',
        near: { rule: 'powercontext.assembly.near-duplicate.word-bigram-jaccard.v1', threshold: 0.8 },
      },
      ordering: 'evidence_order',
      framing: 'powercontext.assembly.frame.untrusted-data.v1',
      tokenizer: 'o200k_base',
    });
    expect(body.contract_digest).toMatch(/^sha256:[0-9a-f]{64}$/u);
    // No reranker: the evidence is the retrieval order, under the retrieval policy and no model.
    expect(body.evidence).toMatchObject({ kind: 'selection', model_id: 'none' });
    expect(body.evidence.policy_id).toMatch(RRF_POLICY);
    expect(body.evidence.query_digest).toMatch(/^sha256:/u);

    // The first two notes differ by one word: one of them is dropped as a near duplicate of the other.
    const [first, second] = written.entries;
    const pair = [first!.entry_version_id, second!.entry_version_id];
    const duplicate = body.omitted.find((omission) => omission.reason === 'duplicate_of');
    expect(duplicate).toMatchObject({ duplicate_match: 'near', similarity: 0.875 });
    expect(pair).toContain(duplicate!.citation.entry_version_id);
    expect(duplicate!.duplicate_of).toBe(pair.find((id) => id !== duplicate!.citation.entry_version_id));
    expect(body.selected.map((chunk) => chunk.citation.entry_version_id)).toContain(duplicate!.duplicate_of);

    // Every candidate is accounted for once; the counts sum the reasons.
    const refs = [...body.selected, ...body.omitted].map((item) => item.ref).sort((a, b) => a - b);
    expect(refs).toEqual(refs.map((_, index) => index + 1));
    expect(Object.values(body.omission_counts).reduce((sum, n) => sum + n, 0)).toBe(body.omitted.length);
    expect(body.omission_counts.duplicate_of).toBe(1);

    // The budget holds, the frame's and chunks' tokens add up, and each chunk cites the revision read.
    expect(body.total_tokens).toBeLessThanOrEqual(2000);
    expect(body.total_tokens).toBe(body.frame_tokens + body.selected.reduce((sum, c) => sum + c.tokens, 0));
    for (const chunk of body.selected) {
      expect(chunk.citation.memory_ref).toEqual(written.memory);
      expect(body.context).toContain(`<chunk ref="${chunk.ref}" source="${chunk.source}">`);
    }
    // Text is escaped inside the frame and appears nowhere else in the answer.
    expect(body.context).toContain(escaped(NOTES[3]!.text));
    expect(body.context).not.toContain('<b>');
    const { context: _context, ...rest } = body;
    for (const { text } of NOTES) expect(JSON.stringify(rest)).not.toContain(text.slice(0, 20));
  });

  it('omits for token_budget, source_cap and chunk_limit as the contract says, and writes in generator order', async () => {
    const { call } = await appWithNotes();
    const request = { scope_id: 'alpha', query: 'deploy Friday', mode: 'fts' };
    const prepare = async (contract: Record<string, unknown>) => {
      const response = await call<PrepareResponse>(
        PREPARE,
        { ...request, contract: { duplicates: { near: null }, ...contract } },
        { key: READER },
      );
      expect(response.status).toBe(200);
      return response.json;
    };
    const omissions = (body: PrepareResponse) =>
      body.omitted.map((omission) => [omission.ref, omission.reason]);

    // With the near-duplicate rule off and the default limits, all four notes fit, best first.
    const roomy = await prepare({});
    expect(roomy.contract.duplicates.near).toBeNull();
    expect(roomy.omitted).toEqual([]);
    const walk = roomy.selected;
    expect(walk.map((chunk) => chunk.evidence_rank)).toEqual([1, 2, 3, 4]);

    // Room for the frame and the best chunk only: every other chunk is left out for the budget.
    const tight = await prepare({ token_budget: roomy.frame_tokens + walk[0]!.tokens });
    expect(tight.selected.map((chunk) => chunk.ref)).toEqual([walk[0]!.ref]);
    expect(tight.total_tokens).toBe(tight.contract.token_budget);
    expect(omissions(tight)).toEqual(walk.slice(1).map((chunk) => [chunk.ref, 'token_budget']));

    // One chunk per source: the second standup-12 note is left out for its source.
    const capped = await prepare({ per_source_cap: 1 });
    const seen = new Set<string>();
    const repeats = walk.filter((chunk) => seen.has(chunk.source) || !seen.add(chunk.source));
    expect(repeats).toHaveLength(1);
    expect(omissions(capped)).toEqual(repeats.map((chunk) => [chunk.ref, 'source_cap']));
    expect(capped.omission_counts.source_cap).toBe(1);

    // Two chunks at most, written in retrieval (generator) order rather than best first.
    const limited = await prepare({ max_chunks: 2, ordering: 'generator_order' });
    expect(limited.selected.map((chunk) => chunk.ref)).toEqual(
      walk
        .slice(0, 2)
        .map((chunk) => chunk.ref)
        .sort((a, b) => a - b),
    );
    expect(omissions(limited)).toEqual(walk.slice(2).map((chunk) => [chunk.ref, 'chunk_limit']));
    expect(limited.contract_digest).not.toBe(roomy.contract_digest);
  });

  it('binds the reranker’s selection: candidates it left out are not_selected, and their text appears nowhere', async () => {
    // The reranker keeps only the last coarse candidate.
    const reranker = createScriptedReranker({ decide: (_q, candidates) => [candidates.length] });
    const { call } = await appWithNotes({ reranker });
    const response = await call<PrepareResponse>(
      PREPARE,
      { scope_id: 'alpha', query: 'deploy', mode: 'fts' },
      { key: READER },
    );
    expect(response.status).toBe(200);
    const body = response.json;
    expect(body.evidence).toMatchObject({ policy_id: 'test.scripted.v1', model_id: 'undeclared' });
    expect(body.selected).toHaveLength(1);
    const pool = body.selected.length + body.omitted.length;
    expect(body.selected[0]!.ref).toBe(pool);
    expect(body.omission_counts.not_selected).toBe(pool - 1);
    for (const omission of body.omitted) {
      expect(omission).not.toHaveProperty('evidence_rank');
      expect(omission).not.toHaveProperty('tokens');
    }
    const inContext = NOTES.filter(({ text }) => body.context.includes(escaped(text)));
    expect(inContext).toHaveLength(1);
    for (const { text } of NOTES) {
      if (!inContext.some((note) => note.text === text)) expect(response.text).not.toContain(escaped(text));
    }
  });

  it('answers an empty frame for a scope that was never written', async () => {
    const { call } = createTestApp(await runtimeWith());
    const response = await call<PrepareResponse>(
      PREPARE,
      { scope_id: 'alpha', query: 'anything' },
      { key: READER },
    );
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ memory: null, selected: [], omitted: [] });
    expect(response.json.total_tokens).toBe(response.json.frame_tokens);
    expect(response.json.context).toMatch(
      /^<notice>.*<\/notice>\n<retrieved_memory>\n<\/retrieved_memory>\n$/su,
    );
  });

  it('requires the read permission on the scope (403), without telling whether the scope exists', async () => {
    const keys = parseApiKeys(
      JSON.stringify({
        keys: [
          {
            id: 'alpha-writer',
            sha256: hashApiKey('alpha-writer-secret'),
            scopes: ['alpha'],
            permissions: ['write'],
          },
          { id: 'beta-all', sha256: hashApiKey(BETA), scopes: ['beta'], permissions: ['read'] },
        ],
      }),
      'test keys',
    );
    const { call } = createTestApp(await runtimeWith(), { auth: { kind: 'keys', keys } });
    const writer = await call(
      PREPARE,
      { scope_id: 'alpha', query: 'deploy' },
      { key: 'alpha-writer-secret' },
    );
    expect(writer.status).toBe(403);
    expect(writer.json.error).toEqual({
      code: 'permission_forbidden',
      message: 'This API key lacks the read permission',
      retryable: false,
    });
    const foreign = await call(PREPARE, { scope_id: 'alpha', query: 'deploy' }, { key: BETA });
    const unknown = await call(PREPARE, { scope_id: 'gamma', query: 'deploy' }, { key: BETA });
    expect(foreign.status).toBe(403);
    expect(foreign.json.error.code).toBe('scope_forbidden');
    expect(unknown.text.replace('gamma', 'alpha')).toBe(foreign.text);
    expect((await call(PREPARE, { scope_id: 'alpha', query: 'deploy' })).status).toBe(401);
  });

  it('answers 422 naming each contract.* field that breaks a rule, before searching', async () => {
    const reranker = createScriptedReranker();
    const { call } = await appWithNotes({ reranker });
    const invalid = await call(
      PREPARE,
      {
        scope_id: 'alpha',
        query: 'deploy',
        contract: {
          version: 'v2',
          token_budget: 0,
          max_chunks: 101,
          per_source_cap: 1.5,
          duplicates: { near: { threshold: 0 }, fuzzy: true },
          ordering: 'random',
          tokenizer: 'gpt2',
        },
      },
      { key: READER },
    );
    expect(invalid.status).toBe(422);
    expect(invalid.json.error.code).toBe('invalid_request');
    expect(invalid.json.error.details?.issues).toEqual([
      { field: 'contract.version', rule: 'version must be powercontext.assembly.contract.v1' },
      { field: 'contract.token_budget', rule: 'token_budget must be at least 1' },
      { field: 'contract.max_chunks', rule: 'max_chunks must be at most 100' },
      { field: 'contract.per_source_cap', rule: 'per_source_cap must be an integer' },
      { field: 'contract.duplicates.near.threshold', rule: 'duplicates.near.threshold must be above 0' },
      { field: 'contract.duplicates.fuzzy', rule: 'is not a known field' },
      { field: 'contract.ordering', rule: 'ordering must be one of evidence_order, generator_order' },
      { field: 'contract.tokenizer', rule: 'tokenizer must be one of o200k_base, cl100k_base' },
    ]);

    // A budget the empty frame does not fit in is the contract's fault too: 422, not 500.
    const small = await call(
      PREPARE,
      { scope_id: 'alpha', query: 'deploy', contract: { token_budget: 10 } },
      { key: READER },
    );
    expect(small.status).toBe(422);
    expect(small.json.error.details?.issues).toEqual([
      {
        field: 'contract.token_budget',
        rule: expect.stringMatching(/^token_budget must be at least the \d+ tokens the frame itself takes$/u),
      },
    ]);
    expect(reranker.calls).toHaveLength(0);
  });

  it('answers a rerank evidence mismatch as a bare 500 internal_error: the request cannot cause one', async () => {
    const failing = {
      memory: {
        forScope: () => ({
          prepareContext: async () => {
            throw new RerankEvidenceError('stale', 'entry 1 changed since it was ranked');
          },
        }),
      },
    } as unknown as Runtime;
    const { call, logs } = createTestApp(failing);
    const response = await call(PREPARE, { scope_id: 'alpha', query: 'deploy' }, { key: READER });
    expect(response.status).toBe(500);
    expect(response.json.error).toEqual({
      code: 'internal_error',
      message: 'The server failed to handle the request',
      retryable: false,
    });
    expect(logs.some((line) => line.includes('"error_code":"rerank_evidence_mismatch"'))).toBe(true);
  });
});
