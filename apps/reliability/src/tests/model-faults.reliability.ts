import type { SearchResponse } from '@powercontext/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type FaultModel, type ModelBehaviour, startFaultModel } from '../testing-support/fault-model.js';
import { type HttpResult, send } from '../testing-support/http.js';
import { createTestDatabase, type TestDatabase } from '../testing-support/postgres.js';
import { Tally } from '../testing-support/report.js';
import { type ServerProcess, startServer } from '../testing-support/server-process.js';

/**
 * Scenario 1: faults injected at the model. Real server processes on PostgreSQL rerank with the
 * listwise policy through a loopback OpenAI-protocol server that misbehaves on request. Each server
 * has ONE rerank slot and no queue, so a slot that a fault failed to give back turns the next search
 * into rerank_saturated: the follow-up search after every fault proves the gate was released.
 */

type Policy = 'fail_closed' | 'fail_open';
/** Which bound ends a hanging model: the model call's own timeout, or the rerank stage deadline. */
type Bound = 'model_timeout' | 'stage_deadline';

const BOUND_MS: Record<Bound, number> = { model_timeout: 1_000, stage_deadline: 800 };
/** Slack on top of the configured bound: scheduling on a busy 2-core machine, never a hang. */
const SLACK_MS = 2_000;

const BOUND_ENV: Record<Bound, Record<string, string>> = {
  model_timeout: {
    POWERCONTEXT_SERVER_INFERENCE_GENERATION_TIMEOUT_SECONDS: '1',
    POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_DEADLINE_MS: '10000',
  },
  stage_deadline: {
    POWERCONTEXT_SERVER_INFERENCE_GENERATION_TIMEOUT_SECONDS: '30',
    POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_DEADLINE_MS: '800',
  },
};

/** What a fault must produce: fail_closed's error, fail_open's degradation reason (null: success). */
interface Expectation {
  status: number;
  code?: string;
  retryable?: boolean;
  degradedReason: string | null;
}

const ok: Expectation = { status: 200, degradedReason: null };
const unavailable: Expectation = {
  status: 503,
  code: 'inference_unavailable',
  retryable: true,
  degradedReason: 'unavailable',
};
const invalid: Expectation = {
  status: 502,
  code: 'inference_invalid_output',
  retryable: false,
  degradedReason: 'invalid_output',
};
const timeout: Expectation = {
  status: 503,
  code: 'inference_timeout',
  retryable: true,
  degradedReason: 'timeout',
};
const deadline: Expectation = {
  status: 503,
  code: 'rerank_deadline',
  retryable: true,
  degradedReason: 'deadline',
};

const FAULTS: Record<Bound, [ModelBehaviour, Expectation][]> = {
  model_timeout: [
    ['hang', timeout],
    ['http_500', unavailable],
    ['http_503_html', unavailable],
    ['reset', unavailable],
    ['reset_mid_body', unavailable],
    ['slow_stream_ok', ok],
    ['slow_stream_stall', timeout],
    ['oversized_ranks', ok],
    ['oversized_prose', invalid],
    ['malformed_prose', invalid],
    ['malformed_schema', invalid],
    ['malformed_envelope', invalid],
    ['truncated_body', invalid],
    ['empty_choices', invalid],
  ],
  stage_deadline: [
    ['hang', deadline],
    ['slow_stream_stall', deadline],
  ],
};

const TEXTS = [
  'Deploys happen on Fridays after the review',
  'The deploy review is on Thursday',
  'Deploy freeze in December',
  'Deploy tokens rotate monthly',
];
const SEARCH = { scope_id: 'faults', query: 'deploy', limit: 2, mode: 'fts', explain: 'redacted' };

type Explained = SearchResponse & { explain: NonNullable<SearchResponse['explain']> };

interface Rig {
  policy: Policy;
  bound: Bound;
  model: FaultModel;
  server: ServerProcess;
  database: TestDatabase;
}

const rigs: Rig[] = [];
/** fail_open answers by degradation reason, for the summary. */
const degraded: Record<string, number> = {};
const tallies: Record<Policy, Tally> = {
  fail_closed: new Tally('1 model faults (fail_closed)'),
  fail_open: new Tally('1 model faults (fail_open)'),
};

async function startRig(policy: Policy, bound: Bound): Promise<Rig> {
  const [model, database] = await Promise.all([startFaultModel([2, 1]), createTestDatabase()]);
  const server = await startServer({
    args: ['--database-url', database.connectionString],
    env: {
      POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_ENABLED: 'true',
      POWERCONTEXT_SERVER_INFERENCE_GENERATION_MODEL: 'openai-compatible:fault-model',
      POWERCONTEXT_SERVER_INFERENCE_BASE_URL: model.baseUrl,
      POWERCONTEXT_SERVER_INFERENCE_GENERATION_MAX_REQUESTS: '1',
      POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_FAILURE_POLICY: policy,
      POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_MAX_IN_FLIGHT: '1',
      POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_QUEUE_TIMEOUT_MS: '0',
      ...BOUND_ENV[bound],
    },
  });
  const seeded = await send(server.url, '/v1/memory/remember', {
    body: { scope_id: 'faults', entries: TEXTS.map((text) => ({ text })) },
  });
  tallies[policy].record(seeded);
  expect(seeded.status).toBe(200);
  return { policy, bound, model, server, database };
}

beforeAll(async () => {
  const started = await Promise.all(
    (['fail_closed', 'fail_open'] as const).flatMap((policy) =>
      (['model_timeout', 'stage_deadline'] as const).map((bound) => startRig(policy, bound)),
    ),
  );
  rigs.push(...started);
});

afterAll(async () => {
  const codes = await Promise.all(rigs.map((rig) => rig.server.stop()));
  for (const rig of rigs) {
    await rig.model.close();
    await rig.database.drop();
  }
  tallies.fail_open.note(
    `answered 200 on coarse ranks, by degradation reason: ${Object.entries(degraded)
      .map(([reason, count]) => `${reason}=${count}`)
      .join(' ')}`,
  );
  for (const tally of Object.values(tallies)) tally.save(inject('reportsDir'));
  expect(codes).toEqual(rigs.map(() => 0));
});

function rig(policy: Policy, bound: Bound): Rig {
  const found = rigs.find((candidate) => candidate.policy === policy && candidate.bound === bound);
  if (!found) throw new Error(`no rig ${policy}/${bound}`);
  return found;
}

async function search(current: Rig): Promise<HttpResult<Explained>> {
  return tallies[current.policy].record(
    await send<Explained>(current.server.url, '/v1/memory/search', { body: SEARCH }),
  );
}

/** The search answered as `expected` under the rig's policy. */
function expectOutcome(current: Rig, response: HttpResult<Explained>, expected: Expectation) {
  const closedFailure = current.policy === 'fail_closed' && expected.status !== 200;
  if (closedFailure) {
    expect(response.status, response.text).toBe(expected.status);
    expect(response.json).toMatchObject({ error: { code: expected.code, retryable: expected.retryable } });
    expect(response.headers.get('retry-after')).toBe(expected.retryable ? '1' : null);
    return;
  }
  expect(response.status, response.text).toBe(200);
  expect(response.json.explain.rerank?.degraded_reason).toBe(expected.degradedReason);
  if (expected.degradedReason !== null) {
    degraded[expected.degradedReason] = (degraded[expected.degradedReason] ?? 0) + 1;
  }
  // Degraded: the coarse order; selected: the model's ranks [2, 1].
  const coarseRanks = response.json.explain.hits.map((hit) => hit.coarse_rank);
  expect(coarseRanks).toEqual(expected.degradedReason === null ? [2, 1] : [1, 2]);
  for (const hit of response.json.hits) expect(hit.citation.memory_ref).toEqual(response.json.memory);
}

/** After a fault: no model request left open, and the one rerank slot is free again. */
async function expectRecovered(current: Rig) {
  await current.model.settled(SLACK_MS);
  current.model.behaviour = 'select';
  const followUp = await search(current);
  expectOutcome(current, followUp, ok);
  expect(current.server.alive()).toBe(true);
}

for (const policy of ['fail_closed', 'fail_open'] as const) {
  for (const bound of ['model_timeout', 'stage_deadline'] as const) {
    describe(`${policy}, bounded by the ${bound.replace('_', ' ')} (${BOUND_MS[bound]} ms)`, () => {
      it.each(FAULTS[bound])('model fault "%s"', async (behaviour, expected) => {
        const current = rig(policy, bound);
        current.model.behaviour = behaviour;
        tallies[policy].fault();
        const response = await search(current);
        expectOutcome(current, response, expected);
        expect(response.ms).toBeLessThan(BOUND_MS[bound] + SLACK_MS);
        await expectRecovered(current);
      });

      it('a burst against a hanging model: one search holds the slot, the rest are saturated at once', async () => {
        const current = rig(policy, bound);
        current.model.behaviour = 'hang';
        tallies[policy].fault();
        const holding = search(current);
        while (current.model.open() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
        const refused = await Promise.all([search(current), search(current), search(current)]);
        for (const response of refused) {
          expectOutcome(current, response, {
            status: 503,
            code: 'rerank_saturated',
            retryable: true,
            degradedReason: 'saturated',
          });
          expect(response.ms).toBeLessThan(SLACK_MS);
        }
        const held = await holding;
        expectOutcome(current, held, bound === 'model_timeout' ? timeout : deadline);
        await expectRecovered(current);
      });
    });
  }
}
