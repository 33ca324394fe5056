import { Writable } from 'node:stream';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Runtime } from '@powercontext/runtime';
import pino from 'pino';
import { hashApiKey, parseApiKeys } from '../auth/api-keys.js';
import { KeyAdmission } from '../auth/key-admission.js';
import { RateLimiter } from '../auth/rate-limiter.js';
import type { AppEnv, AppOptions } from '../http/app-env.js';
import { createApp } from '../http/create-app.js';
import { type Call, createCall } from './http-call.js';
import { secretOf, TEST_KEYS } from './test-keys.js';

export interface TestApp {
  app: OpenAPIHono<AppEnv>;
  /** Every JSON log line the app wrote. */
  logs: string[];
  call: Call;
}

/** The HTTP app over a given runtime, with the test keys, logging into memory. */
export function createTestApp(
  runtime: Runtime | undefined,
  options: Partial<Omit<AppOptions, 'runtime' | 'logger'>> = {},
): TestApp {
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const keys = parseApiKeys(
    JSON.stringify({ keys: TEST_KEYS.map((key) => ({ ...key, sha256: hashApiKey(secretOf(key.id)) })) }),
    'test keys',
  );
  const app = createApp({
    runtime: () => runtime,
    auth: { kind: 'keys', keys },
    logger: pino({ level: 'info' }, sink),
    bodyLimitBytes: 64 * 1024,
    requestTimeoutMs: 10_000,
    admission: new KeyAdmission(new RateLimiter()),
    ...options,
  });
  return { app, logs, call: createCall(async (path, init) => app.request(path, init)) };
}
