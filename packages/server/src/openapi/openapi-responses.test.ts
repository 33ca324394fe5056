import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InferenceError } from '@powercontext/inference';
import {
  CapabilityUnavailableError,
  type MemoryStore,
  RevisionConflictError,
  StoreUnavailableError,
} from '@powercontext/memory-core';
import { createScriptedReranker } from '@powercontext/memory-core/testing';
import { createRuntime, type Runtime } from '@powercontext/runtime';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ServerMetrics } from '../metrics/metrics.js';
import { GatedStore } from '../testing-support/gated-store.js';
import type { CallResult } from '../testing-support/http-call.js';
import { createTestApp } from '../testing-support/in-process-app.js';
import { secretOf } from '../testing-support/test-keys.js';
import { OPENAPI_PATH, REPOSITORY_ROOT } from './openapi-document.js';

// ajv-formats is CommonJS: its default export arrives wrapped under ESM interop.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => void;

/**
 * Every route and every status the committed OpenAPI document declares, answered by the real app
 * (real runtime, real middleware, real error mapping) and validated against the document with a
 * JSON Schema 2020-12 validator. Failures the app cannot be driven into with a healthy store (a
 * conflict, an outage, a defect) come from a store that raises the store port's own typed errors.
 */

interface OperationDoc {
  responses: Record<
    string,
    { content?: { 'application/json'?: { schema: unknown }; 'text/plain'?: { schema: unknown } } }
  >;
}
type PathsDoc = Record<string, Record<string, OperationDoc>>;

const document = parse(readFileSync(join(REPOSITORY_ROOT, OPENAPI_PATH), 'utf8')) as {
  paths: PathsDoc;
  components: { schemas: Record<string, unknown> };
};

/** The document's schemas as one JSON Schema: `#/components/schemas/X` becomes `#/$defs/X`. */
const defs = JSON.parse(
  JSON.stringify(document.components.schemas).replaceAll('#/components/schemas/', '#/$defs/'),
) as Record<string, unknown>;
const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);
// OpenAPI's annotation keywords, which JSON Schema validation ignores.
ajv.addKeyword({ keyword: 'example' });
ajv.addKeyword({ keyword: 'x-limits' });
ajv.addSchema({ $id: 'powercontext', $defs: defs });

const validators = new Map<string, ValidateFunction>();
function validatorFor(schema: unknown): ValidateFunction {
  const text = JSON.stringify(schema).replaceAll('#/components/schemas/', 'powercontext#/$defs/');
  let validate = validators.get(text);
  if (!validate) {
    validate = ajv.compile(JSON.parse(text));
    validators.set(text, validate);
  }
  return validate;
}

const declared = new Set<string>();
for (const [path, operations] of Object.entries(document.paths)) {
  for (const [method, operation] of Object.entries(operations)) {
    for (const status of Object.keys(operation.responses))
      declared.add(`${method.toUpperCase()} ${path} ${status}`);
  }
}
const covered = new Set<string>();

/** Fails unless the document declares this status for the route and the body matches its schema. */
function conforms(method: 'GET' | 'POST', path: string, response: CallResult<unknown>): void {
  const key = `${method} ${path} ${response.status}`;
  const declaration = document.paths[path]?.[method.toLowerCase()]?.responses[String(response.status)];
  expect(declaration, `${key} is not declared in ${OPENAPI_PATH} (body: ${response.text})`).toBeDefined();
  const ndjson = (declaration?.content as Record<string, unknown> | undefined)?.['application/x-ndjson'];
  if (ndjson) {
    expect(response.headers.get('content-type') ?? '').toMatch(/^application\/x-ndjson/u);
    for (const line of response.text.split('\n').filter(Boolean)) {
      expect(typeof (JSON.parse(line) as { text?: unknown }).text, line).toBe('string');
    }
    covered.add(key);
    return;
  }
  if (declaration?.content?.['text/plain']) {
    expect(response.headers.get('content-type') ?? '').toMatch(/^text\/plain/u);
    covered.add(key);
    return;
  }
  expect(response.headers.get('content-type') ?? '').toMatch(/^application\/json/u);
  const schema = declaration!.content?.['application/json']?.schema;
  expect(schema, `${key} declares no JSON body`).toBeDefined();
  const validate = validatorFor(schema);
  const valid = validate(response.json);
  expect(valid, `${key}: ${ajv.errorsText(validate.errors)}\n${response.text}`).toBe(true);
  covered.add(key);
}

const ALL = secretOf('alpha-all');
const READER = secretOf('alpha-reader');
const PURGER = secretOf('alpha-purger');
const BETA = secretOf('beta-all');
const THROTTLED = secretOf('throttled');
const UNKNOWN_ENTRY = '00000000-0000-4000-8000-000000000000';

/**
 * The in-memory store of the contract suite, made to throw `fault` from every call while it is set,
 * and to hold write transactions while `gated` is closed.
 */
class FaultyStore {
  fault: (() => Error) | undefined;
  readonly gated = new GatedStore();
  readonly store: MemoryStore;
  constructor() {
    const target = this.gated.store;
    this.store = new Proxy(target, {
      get: (object, property, receiver) => {
        const value = Reflect.get(object, property, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (this.fault) throw this.fault();
          return value.apply(object, args);
        };
      },
    }) as unknown as MemoryStore;
  }
}

const faulty = new FaultyStore();
const runtimes: Runtime[] = [];
let runtime: Runtime;
let entryId = '';
/** An entry of its own for the purge route, so the other routes keep theirs. */
let purgedEntryId = '';

beforeAll(async () => {
  // The scripted reranker answers with output that breaks its schema only when asked to.
  let invalidOutput = false;
  const reranker = createScriptedReranker({
    decide: (_query, candidates) => {
      if (invalidOutput) throw new InferenceError('inference_invalid_output', 'ranks out of range');
      return candidates.map((_candidate, index) => index + 1);
    },
  });
  runtime = await createRuntime({ env: {}, store: faulty.store, reranker });
  runtimes.push(runtime);
  rerankInvalid = (on) => {
    invalidOutput = on;
  };
});
let rerankInvalid: (on: boolean) => void = () => {};

afterAll(async () => {
  await Promise.all(runtimes.map((each) => each.close()));
});

/** A valid body for every POST route, against scope `scope`. */
function bodies(scope: string): Record<string, Record<string, unknown>> {
  return {
    '/v1/memory/remember': { scope_id: scope, entries: [{ text: 'The deploy freeze starts on Friday' }] },
    '/v1/memory/entries/list': { scope_id: scope },
    '/v1/memory/entries/get': { scope_id: scope, entry_id: entryId },
    '/v1/memory/entries/revise': { scope_id: scope, entry_id: entryId, text: 'The freeze starts Thursday' },
    '/v1/memory/entries/forget': { scope_id: scope, entry_id: entryId },
    '/v1/memory/entries/reactivate': { scope_id: scope, entry_id: entryId },
    '/v1/memory/entries/purge': { scope_id: scope, entry_id: purgedEntryId },
    '/v1/memory/changes': { scope_id: scope },
    '/v1/memory/search': { scope_id: scope, query: 'deploy freeze', explain: 'redacted' },
    '/v1/context/prepare': { scope_id: scope, query: 'deploy freeze' },
    '/v1/memory/summary': { scope_id: scope },
    '/v1/scopes/delete': { scope_id: scope },
  };
}
const DELETE_SCOPE = '/v1/scopes/delete';
const POST_ROUTES = Object.keys(bodies('alpha'));
const WRITE_ROUTES = [
  '/v1/memory/remember',
  '/v1/memory/entries/revise',
  '/v1/memory/entries/forget',
  '/v1/memory/entries/reactivate',
  '/v1/memory/entries/purge',
];
/** The key that may call the route in scope alpha: purging needs the purge permission. */
const keyFor = (path: string) => (path.endsWith('/purge') || path === DELETE_SCOPE ? PURGER : ALL);

describe(`every response conforms to ${OPENAPI_PATH}`, () => {
  it('200: every route, including memory: null for a scope never written', async () => {
    const { call } = createTestApp(runtime);
    const written = await call<{ entries: { entry_id: string }[] }>(
      '/v1/memory/remember',
      bodies('alpha')['/v1/memory/remember'],
      { key: ALL },
    );
    conforms('POST', '/v1/memory/remember', written);
    entryId = written.json.entries[0]!.entry_id;
    const doomed = await call<{ entries: { entry_id: string }[] }>(
      '/v1/memory/remember',
      { scope_id: 'alpha', entries: [{ text: 'The vault code is 7741' }] },
      { key: ALL },
    );
    purgedEntryId = doomed.json.entries[0]!.entry_id;
    for (const [path, body] of Object.entries(bodies('alpha'))) {
      // Deleting alpha would end the other cases: the last case deletes a scope of its own.
      if (path === DELETE_SCOPE) continue;
      // Purging takes the purge permission, which the key of everything else lacks (see the 403 case).
      const response = await call(path, body, { key: keyFor(path) });
      expect(response.status, `${path}: ${response.text}`).toBe(200);
      conforms('POST', path, response);
    }
    // Never written: memory is null on every read that may answer for an empty scope (a keyless
    // local app, so that no key's scope list stands in the way).
    const local = createTestApp(runtime, { auth: { kind: 'local' } });
    for (const path of [
      '/v1/memory/search',
      '/v1/memory/entries/list',
      '/v1/memory/changes',
      '/v1/context/prepare',
      '/v1/memory/summary',
    ]) {
      const empty = await local.call<{ memory: unknown }>(path, bodies('never-written')[path]);
      expect(empty.status, empty.text).toBe(200);
      expect(empty.json.memory).toBeNull();
      conforms('POST', path, empty);
    }
    for (const path of ['/v1/capabilities', '/v1/scopes', '/healthz', '/readyz']) {
      const response = await call(path, undefined, { key: ALL });
      expect(response.status).toBe(200);
      conforms('GET', path, response);
    }
  });

  it('400 malformed_request: a body that is not JSON', async () => {
    const { call } = createTestApp(runtime);
    for (const path of POST_ROUTES) {
      const response = await call(path, undefined, { key: ALL, raw: '{"scope_id": ' });
      expect(response.status).toBe(400);
      expect(response.json.error.code).toBe('malformed_request');
      conforms('POST', path, response);
    }
  });

  it('401 unauthenticated: no key', async () => {
    const { call } = createTestApp(runtime);
    for (const path of POST_ROUTES) {
      const response = await call(path, bodies('alpha')[path]);
      expect(response.status).toBe(401);
      conforms('POST', path, response);
    }
    for (const path of ['/v1/capabilities', '/v1/scopes']) {
      const response = await call(path);
      expect(response.status).toBe(401);
      conforms('GET', path, response);
    }
  });

  it('403 scope_forbidden and permission_forbidden', async () => {
    const { call } = createTestApp(runtime);
    for (const path of POST_ROUTES) {
      const response = await call(path, bodies('alpha')[path], { key: BETA });
      expect(response.status).toBe(403);
      expect(response.json.error.code).toBe('scope_forbidden');
      conforms('POST', path, response);
    }
    const write = await call('/v1/memory/remember', bodies('alpha')['/v1/memory/remember'], { key: READER });
    expect(write.json.error.code).toBe('permission_forbidden');
    conforms('POST', '/v1/memory/remember', write);
    // write does not include purge.
    const purge = await call('/v1/memory/entries/purge', bodies('alpha')['/v1/memory/entries/purge'], {
      key: ALL,
    });
    expect(purge.json.error).toMatchObject({
      code: 'permission_forbidden',
      message: 'This API key lacks the purge permission',
    });
    conforms('POST', '/v1/memory/entries/purge', purge);
  });

  it('410 entry_purged: reads and writes that name a purged entry', async () => {
    const { call } = createTestApp(runtime);
    const purged: Record<string, Record<string, unknown>> = {
      '/v1/memory/entries/get': { scope_id: 'alpha', entry_id: purgedEntryId },
      '/v1/memory/entries/revise': { scope_id: 'alpha', entry_id: purgedEntryId, text: 'x' },
      '/v1/memory/entries/forget': { scope_id: 'alpha', entry_id: purgedEntryId },
      '/v1/memory/entries/reactivate': { scope_id: 'alpha', entry_id: purgedEntryId },
    };
    for (const [path, body] of Object.entries(purged)) {
      const response = await call<{ error: { details?: { purge?: unknown } } }>(path, body, { key: ALL });
      expect(response.status, `${path}: ${response.text}`).toBe(410);
      expect(response.json.error).toMatchObject({
        code: 'entry_purged',
        retryable: false,
        details: { entry_id: purgedEntryId, purge: { revision: expect.any(Number) } },
      });
      // Who purged is only for a key that may purge (issue 28); this one may not.
      expect(response.text).not.toContain('purged_by');
      conforms('POST', path, response);
    }
    const byPurger = await call<{ error: { details?: unknown } }>(
      '/v1/memory/entries/get',
      purged['/v1/memory/entries/get'],
      { key: PURGER },
    );
    expect(byPurger.status).toBe(410);
    expect(byPurger.json.error.details).toMatchObject({ purge: { purged_by: 'alpha-purger' } });
    conforms('POST', '/v1/memory/entries/get', byPurger);
  });

  it('404 not_found: an unknown entry or revision', async () => {
    const { call } = createTestApp(runtime);
    const unknown: Record<string, Record<string, unknown>> = {
      '/v1/memory/entries/list': { scope_id: 'alpha', revision: 99 },
      '/v1/memory/entries/get': { scope_id: 'alpha', entry_id: UNKNOWN_ENTRY },
      '/v1/memory/entries/revise': { scope_id: 'alpha', entry_id: UNKNOWN_ENTRY, text: 'x' },
      '/v1/memory/entries/forget': { scope_id: 'alpha', entry_id: UNKNOWN_ENTRY },
      '/v1/memory/entries/reactivate': { scope_id: 'alpha', entry_id: UNKNOWN_ENTRY },
      '/v1/memory/entries/purge': { scope_id: 'alpha', entry_id: UNKNOWN_ENTRY },
      '/v1/memory/changes': { scope_id: 'alpha', to_revision: 99 },
    };
    for (const [path, body] of Object.entries(unknown)) {
      const response = await call(path, body, { key: keyFor(path) });
      expect(response.status, `${path}: ${response.text}`).toBe(404);
      conforms('POST', path, response);
    }
  });

  it('409: a write the scope moved under, and vector search without a vector index', async () => {
    const { call } = createTestApp(runtime);
    faulty.fault = () => new RevisionConflictError('alpha', 1);
    try {
      for (const path of [
        '/v1/memory/remember',
        '/v1/memory/entries/revise',
        '/v1/memory/entries/forget',
        '/v1/memory/entries/reactivate',
        '/v1/memory/entries/purge',
      ]) {
        const response = await call(path, bodies('alpha')[path], { key: keyFor(path) });
        expect(response.status, `${path}: ${response.text}`).toBe(409);
        expect(response.json.error.code).toBe('revision_conflict');
        conforms('POST', path, response);
      }
      faulty.fault = () =>
        new CapabilityUnavailableError('vector_index', 'the scope has no complete vector index');
      for (const path of ['/v1/memory/search', '/v1/context/prepare']) {
        const response = await call(path, { ...bodies('alpha')[path], mode: 'vector' }, { key: ALL });
        expect(response.status, `${path}: ${response.text}`).toBe(409);
        expect(response.json.error.code).toBe('capability_unavailable');
        conforms('POST', path, response);
      }
    } finally {
      faulty.fault = undefined;
    }
  });

  it('413 payload_too_large: a body over the limit', async () => {
    const { call } = createTestApp(runtime, { bodyLimitBytes: 256 });
    for (const path of POST_ROUTES) {
      const response = await call(
        path,
        { ...bodies('alpha')[path], padding: 'x'.repeat(1_000) },
        { key: ALL },
      );
      expect(response.status).toBe(413);
      conforms('POST', path, response);
    }
  });

  it('422 invalid_request: a field that breaks a rule', async () => {
    const { call } = createTestApp(runtime);
    for (const path of POST_ROUTES) {
      const response = await call(path, { ...bodies('alpha')[path], scope_id: '' }, { key: ALL });
      expect(response.status).toBe(422);
      expect(response.json.error.details?.issues?.[0]?.field).toBe('scope_id');
      conforms('POST', path, response);
    }
  });

  it('429 rate_limited: a key over its limit', async () => {
    const GET_ROUTES = ['/v1/capabilities', '/v1/scopes'];
    for (const path of [...POST_ROUTES, ...GET_ROUTES]) {
      const { call } = createTestApp(runtime); // a fresh limiter per route
      const body = GET_ROUTES.includes(path) ? undefined : bodies('alpha')[path];
      let response = await call(path, body, { key: THROTTLED });
      for (let attempt = 0; attempt < 3 && response.status !== 429; attempt++) {
        response = await call(path, body, { key: THROTTLED });
      }
      expect(response.status).toBe(429);
      expect(response.headers.get('retry-after')).toMatch(/^\d+$/u);
      conforms(GET_ROUTES.includes(path) ? 'GET' : 'POST', path, response);
    }
  });

  it('500 internal_error: a defect in the store', async () => {
    const { call } = createTestApp(runtime);
    faulty.fault = () => new TypeError('cannot read properties of undefined');
    try {
      for (const path of POST_ROUTES) {
        const response = await call(path, bodies('alpha')[path], { key: keyFor(path) });
        expect(response.status, `${path}: ${response.text}`).toBe(500);
        expect(response.json.error).toMatchObject({ code: 'internal_error', retryable: false });
        conforms('POST', path, response);
      }
      // A key of every scope lists the scopes that hold memory, from the store.
      const scopes = await createTestApp(runtime, { auth: { kind: 'local' } }).call('/v1/scopes');
      expect(scopes.status).toBe(500);
      conforms('GET', '/v1/scopes', scopes);
    } finally {
      faulty.fault = undefined;
    }
  });

  it('502 inference_invalid_output: a reranker that breaks its output schema', async () => {
    const { call } = createTestApp(runtime);
    rerankInvalid(true);
    try {
      for (const path of ['/v1/memory/search', '/v1/context/prepare']) {
        const response = await call(path, bodies('alpha')[path], { key: ALL });
        expect(response.status, `${path}: ${response.text}`).toBe(502);
        expect(response.json.error.code).toBe('inference_invalid_output');
        conforms('POST', path, response);
      }
    } finally {
      rerankInvalid(false);
    }
  });

  it('503: the store down, and the server not ready', async () => {
    const { call } = createTestApp(runtime);
    faulty.fault = () => new StoreUnavailableError('connection refused');
    try {
      for (const path of POST_ROUTES) {
        const response = await call(path, bodies('alpha')[path], { key: keyFor(path) });
        expect(response.status, `${path}: ${response.text}`).toBe(503);
        expect(response.json.error).toMatchObject({ code: 'database_unavailable', retryable: true });
        conforms('POST', path, response);
      }
      const scopes = await createTestApp(runtime, { auth: { kind: 'local' } }).call('/v1/scopes');
      expect(scopes.status).toBe(503);
      conforms('GET', '/v1/scopes', scopes);
    } finally {
      faulty.fault = undefined;
    }
    const starting = createTestApp(undefined);
    for (const path of ['/v1/capabilities', '/readyz']) {
      const response = await starting.call(path, undefined, { key: ALL });
      expect(response.status).toBe(503);
      conforms('GET', path, response);
    }
  });

  it('200 with Idempotent-Replayed, and 422 idempotency_key_reused: a write repeated with its key', async () => {
    const { call } = createTestApp(runtime);
    const keyOf = (path: string) => ({ 'Idempotency-Key': `document-${path}` });
    for (const path of WRITE_ROUTES) {
      const first = await call(path, bodies('alpha')[path], { key: keyFor(path), headers: keyOf(path) });
      expect(first.status, `${path}: ${first.text}`).toBe(200);
      const replayed = await call(path, bodies('alpha')[path], { key: keyFor(path), headers: keyOf(path) });
      expect(replayed.headers.get('idempotent-replayed')).toBe('true');
      expect(replayed.text).toBe(first.text);
      conforms('POST', path, replayed);
    }
    for (const path of WRITE_ROUTES) {
      // The key the same API key used on another route (keys are kept per API key): another request.
      // The purge route's key purges and writes nothing else: another entry is another request there.
      const other = WRITE_ROUTES.find((route) => route !== path && keyFor(route) === keyFor(path));
      const body = other ? bodies('alpha')[path] : { ...bodies('alpha')[path], entry_id: randomUUID() };
      const reused = await call(path, body, { key: keyFor(path), headers: keyOf(other ?? path) });
      expect(reused.status, `${path}: ${reused.text}`).toBe(422);
      expect(reused.json.error.code).toBe('idempotency_key_reused');
      conforms('POST', path, reused);
      const invalid = await call(path, bodies('alpha')[path], {
        key: keyFor(path),
        headers: { 'Idempotency-Key': 'a b' },
      });
      expect(invalid.status).toBe(422);
      expect(invalid.json.error.details?.issues?.[0]?.field).toBe('Idempotency-Key');
      conforms('POST', path, invalid);
    }
  });

  it('504 write_outcome_unknown: a request timeout after the write began', async () => {
    const { call } = createTestApp(runtime, { requestTimeoutMs: 100 });
    for (const path of WRITE_ROUTES) {
      faulty.gated.close();
      try {
        const response = await call(path, bodies('alpha')[path], {
          key: keyFor(path),
          headers: { 'Idempotency-Key': `timeout-${path}` },
        });
        expect(response.status, `${path}: ${response.text}`).toBe(504);
        expect(response.json.error).toMatchObject({ code: 'write_outcome_unknown', retryable: true });
        expect(response.headers.get('retry-after')).toBe('1');
        conforms('POST', path, response);
      } finally {
        await faulty.gated.open();
      }
    }
  });

  it('404 and 405 outside the routes: the document’s ErrorResponse', async () => {
    const { call } = createTestApp(runtime);
    const validate = validatorFor({ $ref: '#/components/schemas/ErrorResponse' });
    const wrongMethod = await call('/v1/memory/search', undefined, { key: ALL });
    expect(wrongMethod.status).toBe(405);
    const noRoute = await call('/v1/memory/nothing', {}, { key: ALL });
    expect(noRoute.status).toBe(404);
    for (const response of [wrongMethod, noRoute]) expect(validate(response.json), response.text).toBe(true);
  });

  it('/metrics: 200 Prometheus text with a key, 401 without one, 404 on a server without metrics', async () => {
    const metrics = new ServerMetrics();
    const { call } = createTestApp(runtime, { metrics });
    const searched = await call('/v1/memory/search', { scope_id: 'alpha', query: 'anything' }, { key: ALL });
    expect(searched.status, searched.text).toBe(200);
    const scraped = await call('/metrics', undefined, { key: ALL });
    expect(scraped.status).toBe(200);
    conforms('GET', '/metrics', scraped);
    expect(scraped.text).toMatch(
      /^powercontext_http_requests_total\{route="\/v1\/memory\/search",method="POST",code="200"\} 1$/mu,
    );
    const anonymous = await call('/metrics');
    expect(anonymous.status).toBe(401);
    conforms('GET', '/metrics', anonymous);
    const without = await createTestApp(runtime).call('/metrics', undefined, { key: ALL });
    expect(without.status).toBe(404);
    conforms('GET', '/metrics', without);
  });

  it('export and delete a scope: every status, then 410 scope_purged on every route of it', async () => {
    const app = createTestApp(runtime);
    const exported = async (
      query: string,
      key?: string,
    ): Promise<CallResult<{ error: { code: string } }>> => {
      const response = await app.app.request(`/v1/memory/export?${query}`, {
        headers: key ? { authorization: `Bearer ${key}` } : {},
      });
      const text = await response.text();
      const json = (response.headers.get('content-type') ?? '').includes('application/json')
        ? JSON.parse(text)
        : {};
      const result = { status: response.status, text, json, headers: response.headers };
      conforms('GET', '/v1/memory/export', result);
      return result;
    };
    expect((await exported('scope_id=alpha', ALL)).status).toBe(200);
    expect((await exported('scope_id=alpha')).status).toBe(401);
    expect((await exported('scope_id=alpha', BETA)).status).toBe(403);
    expect((await exported('scope_id=alpha&revision=9999', ALL)).status).toBe(404);
    expect((await exported('scope_id=alpha&revision=0', ALL)).status).toBe(422);
    let limited = 0;
    for (let i = 0; i < 5 && limited !== 429; i += 1)
      limited = (await exported('scope_id=alpha', THROTTLED)).status;
    expect(limited).toBe(429);
    for (const [fault, status] of [
      [() => new TypeError('defect'), 500],
      [() => new StoreUnavailableError('connection refused'), 503],
    ] as const) {
      faulty.fault = fault;
      try {
        expect((await exported('scope_id=alpha', ALL)).status).toBe(status);
      } finally {
        faulty.fault = undefined;
      }
    }
    // Scope beta, whose key may purge: 404 before it is written, 200 deleted, then 410 everywhere.
    const never = await app.call(DELETE_SCOPE, { scope_id: 'beta' }, { key: BETA });
    expect(never.status).toBe(404);
    conforms('POST', DELETE_SCOPE, never);
    const written = await app.call('/v1/memory/remember', bodies('beta')['/v1/memory/remember'], {
      key: BETA,
    });
    expect(written.status).toBe(200);
    const deleted = await app.call(DELETE_SCOPE, { scope_id: 'beta' }, { key: BETA });
    expect(deleted.status, deleted.text).toBe(200);
    conforms('POST', DELETE_SCOPE, deleted);
    const gone: Record<string, Record<string, unknown>> = {
      ...bodies('beta'),
      '/v1/memory/entries/purge': { scope_id: 'beta', entry_id: UNKNOWN_ENTRY },
    };
    for (const path of [
      '/v1/memory/remember',
      '/v1/memory/entries/list',
      '/v1/memory/entries/purge',
      '/v1/memory/changes',
      '/v1/memory/search',
      '/v1/context/prepare',
      '/v1/memory/summary',
    ]) {
      const response = await app.call<{ error: { code: string } }>(path, gone[path], { key: BETA });
      expect(response.status, `${path}: ${response.text}`).toBe(410);
      expect(response.json.error.code).toBe('scope_purged');
      conforms('POST', path, response);
    }
    expect((await exported('scope_id=beta', BETA)).json.error.code).toBe('scope_purged');
  });

  it('covered every route and status the document declares', () => {
    expect([...declared].filter((key) => !covered.has(key)).sort()).toEqual([]);
  });
});
