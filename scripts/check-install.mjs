#!/usr/bin/env node
// `pnpm check:install`: installs the release tarballs the way a user installs published packages, outside
// the workspace, and runs them:
//   1. packs every public package (as `pnpm release:pack` does) into a scratch folder,
//   2. serves those tarballs from a throw-away registry on loopback for the @powercontext scope only
//      (every other package comes from the usual registry), so npm resolves @powercontext/* dependencies
//      exactly as it will once they are published,
//   3. installs @powercontext/runtime into an empty project and runs the README's "Use it from code"
//      example there (taken from README.md, not copied),
//   4. installs @powercontext/server into a temporary global prefix (`npm i -g --prefix`), then checks
//      that the global `powercontext` bin answers a search over HTTP (`server run`) and `tools/list` over
//      stdio (`mcp`).
// The packages must already be built (`pnpm build`). Usage: node scripts/check-install.mjs [--keep]
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { packPackage, publicPackages, root } from './lib/public-packages.mjs';

const work = fs.mkdtempSync(path.join(tmpdir(), 'powercontext-check-install-'));
const started = performance.now();
const failures = [];
const step = (title) =>
  console.log(`\n=== ${title} (+${((performance.now() - started) / 1000).toFixed(1)} s)`);
const check = (ok, what, detail = '') => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${detail ? `: ${detail}` : ''}`);
  if (!ok) failures.push(what);
  return ok;
};

// --- 1. pack -------------------------------------------------------------------------------------
step('pack the public packages');
const tarballDir = path.join(work, 'tarballs');
fs.mkdirSync(tarballDir);
const tarballs = new Map(); // name -> { file, manifest, integrity, shasum }
for (const pkg of publicPackages()) {
  const file = packPackage(pkg, tarballDir);
  const manifest = JSON.parse(
    spawnSync('tar', ['-xzOf', file, 'package/package.json'], { encoding: 'utf8' }).stdout,
  );
  const data = fs.readFileSync(file);
  tarballs.set(pkg.name, {
    file,
    manifest,
    integrity: `sha512-${createHash('sha512').update(data).digest('base64')}`,
    shasum: createHash('sha1').update(data).digest('hex'),
  });
}
console.log(`${tarballs.size} tarballs in ${tarballDir}`);

// --- 2. a registry for the @powercontext scope ---------------------------------------------------
const registry = http.createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://registry');
  const tarballName = url.pathname.startsWith('/-/tarballs/')
    ? url.pathname.slice('/-/tarballs/'.length)
    : null;
  if (tarballName) {
    const entry = [...tarballs.values()].find((t) => path.basename(t.file) === tarballName);
    if (!entry) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'application/octet-stream' });
    return void fs.createReadStream(entry.file).pipe(response);
  }
  const name = decodeURIComponent(url.pathname.slice(1));
  const entry = tarballs.get(name);
  if (!entry) {
    response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    return;
  }
  const { version } = entry.manifest;
  const base = `http://127.0.0.1:${registry.address().port}`;
  const packument = {
    name,
    'dist-tags': { latest: version },
    versions: {
      [version]: {
        ...entry.manifest,
        _id: `${name}@${version}`,
        dist: {
          tarball: `${base}/-/tarballs/${path.basename(entry.file)}`,
          integrity: entry.integrity,
          shasum: entry.shasum,
        },
      },
    },
  };
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(packument));
});
await new Promise((resolve) => registry.listen(0, '127.0.0.1', resolve));
const scopeRegistry = `--@powercontext:registry=http://127.0.0.1:${registry.address().port}/`;
console.log(`@powercontext registry on ${scopeRegistry.split('=')[1]}`);

/** Runs npm asynchronously (the registry above runs in this process, so npm must not block it). */
function npm(args, cwd) {
  return new Promise((resolve) => {
    const child = spawn('npm', [...args, scopeRegistry, '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => resolve({ ok: code === 0, output }));
  });
}

/** Runs a command to completion with a time bound; resolves with its exit code and output. */
function runProcess(command, args, options) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

try {
  // --- 3. an empty project: the README's code example ---------------------------------------------
  step('npm install @powercontext/runtime in an empty project, run the README example');
  const project = path.join(work, 'project');
  fs.mkdirSync(project);
  fs.writeFileSync(
    path.join(project, 'package.json'),
    `${JSON.stringify({ name: 'readme-example', private: true, type: 'module' }, null, 2)}\n`,
  );
  const projectInstall = await npm(['install', '@powercontext/runtime'], project);
  if (
    check(
      projectInstall.ok,
      'npm install @powercontext/runtime',
      projectInstall.ok ? '' : projectInstall.output,
    )
  ) {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Use it from code'));
    const example = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    if (check(example !== undefined, 'README has a "Use it from code" example')) {
      fs.writeFileSync(path.join(project, 'example.mjs'), example);
      const result = await runProcess(process.execPath, ['example.mjs'], {
        cwd: project,
        env: { ...process.env, POWERCONTEXT_SERVER_DATA_DIR: path.join(work, 'example-data') },
      });
      check(
        result.code === 0 && result.stdout.includes('We deploy on Fridays'),
        'README example prints its hit',
        result.code === 0 ? result.stdout.trim().split('\n')[0] : `exit ${result.code}\n${result.stderr}`,
      );
    }
  }

  // --- 4. a global install: powercontext server run and powercontext mcp ---------------------------
  step('npm install --global --prefix <tmp> @powercontext/server');
  const prefix = path.join(work, 'global');
  const globalInstall = await npm(['install', '--global', '--prefix', prefix, '@powercontext/server'], work);
  const bin = path.join(prefix, 'bin', 'powercontext');
  if (
    check(
      globalInstall.ok && fs.existsSync(bin),
      'global install puts bin/powercontext on the prefix',
      globalInstall.ok ? bin : globalInstall.output,
    )
  ) {
    // Outside any project: the bin must find everything in its own installation.
    const outside = path.join(work, 'elsewhere');
    fs.mkdirSync(outside);
    const env = { ...process.env, PATH: `${path.join(prefix, 'bin')}${path.delimiter}${process.env.PATH}` };
    delete env.POWERCONTEXT_SERVER_DATABASE_URL;

    step('powercontext server run: remember, then search over HTTP');
    await checkHttpServer(env, outside);

    step('powercontext mcp: initialize and tools/list over stdio');
    await checkMcpStdio(env, outside);
  }
} finally {
  registry.close();
}

async function checkHttpServer(env, cwd) {
  const server = spawn(
    'powercontext',
    ['server', 'run', '--port', '0', '--data-dir', path.join(work, 'server-data')],
    {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  server.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => server.on('close', resolve));
  try {
    const lines = createInterface({ input: server.stdout });
    const url = await Promise.race([
      new Promise((resolve) =>
        lines.on('line', (line) => line.startsWith('listening on ') && resolve(line.slice(13))),
      ),
      exited.then(() => null),
      new Promise((resolve) => setTimeout(() => resolve(null), 60_000)),
    ]);
    if (!check(typeof url === 'string', 'server run prints its listening line', url ?? stderr.slice(-2000)))
      return;
    const post = async (route, body) => {
      const response = await fetch(`${url}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    };
    const remembered = await post('/v1/memory/remember', {
      scope_id: 'install-check',
      entries: [{ text: 'The install check deploys on Fridays.', sources: [{ source_id: 'check' }] }],
    });
    check(remembered.status === 200, 'POST /v1/memory/remember', `status ${remembered.status}`);
    const searched = await post('/v1/memory/search', {
      scope_id: 'install-check',
      query: 'when does it deploy?',
    });
    const hit = searched.body.hits?.[0];
    check(
      searched.status === 200 &&
        hit?.text === 'The install check deploys on Fridays.' &&
        hit.citation?.entry_id,
      'POST /v1/memory/search returns the cited hit',
      `status ${searched.status}, ${JSON.stringify(hit ?? searched.body).slice(0, 200)}`,
    );
    // The memory inspector comes built in the tarball (rfcs/0012): the page and its script answer.
    const page = await fetch(`${url}/ui/`);
    const html = await page.text();
    const script = /src="(\/ui\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    const scriptStatus = script ? (await fetch(`${url}${script}`)).status : 'none';
    check(
      page.status === 200 &&
        scriptStatus === 200 &&
        /script-src 'self'/.test(page.headers.get('content-security-policy') ?? ''),
      'GET /ui/ serves the inspector and its script, under its CSP',
      `page ${page.status}, script ${script ?? 'missing'}: ${scriptStatus}`,
    );
  } finally {
    server.kill('SIGTERM');
    const code = await Promise.race([
      exited,
      new Promise((resolve) => setTimeout(() => resolve('timeout'), 30_000)),
    ]);
    check(code === 0, 'server run stops cleanly on SIGTERM', `exit ${code}`);
    if (code === 'timeout') server.kill('SIGKILL');
  }
}

async function checkMcpStdio(env, cwd) {
  const mcp = spawn('powercontext', ['mcp', '--data-dir', path.join(work, 'mcp-data')], {
    cwd,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  mcp.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => mcp.on('close', resolve));
  const responses = new Map();
  const waiters = new Map();
  createInterface({ input: mcp.stdout }).on('line', (line) => {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    if (message.id === undefined) return;
    responses.set(message.id, message);
    waiters.get(message.id)?.(message);
  });
  const request = (id, method, params) => {
    mcp.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return Promise.race([
      responses.has(id) ? responses.get(id) : new Promise((resolve) => waiters.set(id, resolve)),
      exited.then(() => null),
      new Promise((resolve) => setTimeout(() => resolve(null), 60_000)),
    ]);
  };
  try {
    const initialized = await request(1, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'check-install', version: '0' },
    });
    if (
      !check(
        initialized?.result?.serverInfo !== undefined,
        'mcp answers initialize',
        initialized ? '' : stderr.slice(-2000),
      )
    )
      return;
    mcp.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    const listed = await request(2, 'tools/list', {});
    const names = (listed?.result?.tools ?? []).map((tool) => tool.name);
    check(names.includes('search_memory'), 'mcp answers tools/list', names.join(', '));
  } finally {
    mcp.stdin.end();
    const code = await Promise.race([
      exited,
      new Promise((resolve) => setTimeout(() => resolve('timeout'), 30_000)),
    ]);
    check(code === 0, 'mcp exits when stdin closes', `exit ${code}`);
    if (code === 'timeout') mcp.kill('SIGKILL');
  }
}

step('summary');
const keep = failures.length > 0 || process.argv.includes('--keep');
if (keep) console.log(`scratch files kept in ${work}`);
else fs.rmSync(work, { recursive: true, force: true });
console.log(`check-install: ${failures.length ? `FAILED (${failures.join('; ')})` : 'all good'}`);
process.exit(failures.length ? 1 : 0);
