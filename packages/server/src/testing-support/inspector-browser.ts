// What every browser test of the memory inspector starts from: a real `powercontext server run` on a
// temporary PGlite data directory with a keys file, Debian's Chromium driven by playwright-core, and
// the helpers each test file used to write for itself (sign in, axe, calls to the API as a key).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { hashApiKey } from '../auth/api-keys.js';
import { type ServerProcess, startServerProcess } from './server-process.js';

export const CHROMIUM = process.env.POWERCONTEXT_CHROMIUM ?? '/usr/bin/chromium';
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

// The callbacks given to page.evaluate run in the browser; this package compiles without the DOM
// library, so the one page global touched here is declared here.
declare const window: object;

/** One API key of the keys file: its secret, the scopes it may use, and its permissions. */
export interface InspectorKey {
  readonly id: string;
  readonly secret: string;
  readonly scopes: readonly string[] | '*';
  readonly permissions: readonly string[];
}

export interface InspectorStand {
  readonly server: ServerProcess;
  readonly browser: Browser;
  readonly dir: string;
  /** POSTs `body` to `path` as `secret` and expects 200. */
  api<T>(path: string, body: unknown, secret: string): Promise<T>;
  /** Closes the browser, stops the server and removes the data directory. */
  close(): Promise<void>;
}

/** Starts the server (with these keys) and Chromium side by side; resolves once memory routes answer. */
export async function startInspectorStand(options: {
  readonly keys: readonly InspectorKey[];
  readonly prefix: string;
  readonly env?: Record<string, string>;
}): Promise<InspectorStand> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);
  const dir = mkdtempSync(join(tmpdir(), options.prefix));
  const keysFile = join(dir, 'keys.json');
  writeFileSync(
    keysFile,
    JSON.stringify({
      keys: options.keys.map((key) => ({
        id: key.id,
        sha256: hashApiKey(key.secret),
        scopes: key.scopes,
        permissions: key.permissions,
      })),
    }),
  );
  const [server, browser] = await Promise.all([
    startServerProcess({
      args: ['--data-dir', join(dir, 'data'), '--api-keys-file', keysFile],
      ...(options.env ? { env: options.env } : {}),
      timeoutMs: 60_000,
    }),
    chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    }),
  ]);
  // The runtime opens after the port: wait until memory routes answer.
  for (let attempt = 0; ; attempt += 1) {
    if ((await fetch(`${server.url}/readyz`)).status === 200) break;
    if (attempt > 300) throw new Error('the server never became ready');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    server,
    browser,
    dir,
    async api<T>(path: string, body: unknown, secret: string): Promise<T> {
      const response = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
        body: JSON.stringify(body),
      });
      expect(response.status, await response.clone().text()).toBe(200);
      return (await response.json()) as T;
    },
    async close() {
      await browser.close();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Signs in through the key form with the keyboard alone and waits for the Scopes page. */
export async function signIn(page: Page, url: string, secret: string): Promise<void> {
  await page.goto(`${url}/ui/`);
  await page.getByRole('heading', { name: 'Sign in with an API key' }).waitFor();
  // The key field has the focus: type the key and press Enter, no mouse.
  await page.keyboard.type(secret);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Scopes', level: 1 }).waitFor();
}

/** axe-core in the page: no violation at all (each one found is listed with its impact and targets). */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run: (context: unknown) => Promise<{ violations: unknown[] }> } }
    ).axe;
    const result = await axe.run((window as unknown as { document: unknown }).document);
    return (result.violations as { id: string; impact: string | null; nodes: { target: unknown }[] }[]).map(
      (violation) => ({
        id: violation.id,
        impact: violation.impact,
        targets: violation.nodes.map((node) => JSON.stringify(node.target)),
      }),
    );
  });
  expect(violations, `${name}: ${JSON.stringify(violations)}`).toEqual([]);
}
