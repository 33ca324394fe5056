import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { ApiError } from './api-error.js';
import type { AppEnv } from './app-env.js';

/**
 * The built inspector (`pnpm build` bundles packages/server/ui into dist/ui). The same relative path
 * works from src/http (tests) and dist/http (the published package).
 */
export const INSPECTOR_DIR = fileURLToPath(new URL('../../dist/ui/', import.meta.url));

/**
 * What the inspector's pages may do: scripts, styles and images from the server itself, requests to
 * the server itself (the v1 API), nothing inline, no eval, no plug-ins, no framing, no foreign forms.
 */
export const INSPECTOR_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

interface Asset {
  body: Uint8Array<ArrayBuffer>;
  type: string;
}

/** Reads the built files once; an unbuilt tree serves an answer that says so. */
function loadAssets(dir: string): { index: Asset; files: Map<string, Asset> } | undefined {
  try {
    const read = (path: string): Asset => ({
      body: new Uint8Array(readFileSync(path)),
      type: TYPES[extname(path)] ?? 'application/octet-stream',
    });
    const files = new Map<string, Asset>();
    for (const name of readdirSync(join(dir, 'assets'))) {
      if (TYPES[extname(name)]) files.set(name, read(join(dir, 'assets', name)));
    }
    return { index: read(join(dir, 'index.html')), files };
  } catch {
    return undefined;
  }
}

/**
 * `GET /ui/`: the memory inspector, a static page that calls the public v1 API with the key the user
 * types (kept in the tab's session storage). The files hold no memory and need no key; every piece
 * of data the page shows comes through the API, with its auth, scope checks and rate limits.
 */
export function registerInspectorRoutes(
  app: OpenAPIHono<AppEnv>,
  options: { keyless: boolean },
  dir: string = INSPECTOR_DIR,
): void {
  const assets = loadAssets(dir);
  const send = (asset: Asset) =>
    new Response(asset.body, {
      status: 200,
      headers: {
        'content-type': asset.type,
        'content-security-policy': INSPECTOR_CSP,
        'x-content-type-options': 'nosniff',
        'cross-origin-opener-policy': 'same-origin',
        'cross-origin-resource-policy': 'same-origin',
      },
    });
  const built = () => {
    if (!assets) {
      throw new ApiError('not_found', 'The inspector was not built with this server (run `pnpm build`)');
    }
    return assets;
  };
  app.get('/ui', (c) => c.redirect('/ui/', 308));
  app.get('/ui/', () => send(built().index));
  // Whether the page must ask for a key before its first API call: without this, every visit of a
  // server with keys began with a refused GET /v1/scopes (a 401 in the browser's console). It says
  // only what a 401 would have said, and holds no memory.
  app.get('/ui/session.json', (c) => {
    c.header('cache-control', 'no-store');
    return c.json({ keys_required: !options.keyless });
  });
  app.get('/ui/assets/:name', (c) => {
    const asset = built().files.get(c.req.param('name'));
    if (!asset) throw new ApiError('not_found', `No inspector file ${c.req.path}`);
    return send(asset);
  });
}
