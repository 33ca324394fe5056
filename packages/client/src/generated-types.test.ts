import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const GENERATED = 'src/generated/openapi.ts';

function run(command: string, args: string[], input?: string): string {
  const result = spawnSync(command, args, { cwd: PACKAGE_DIR, encoding: 'utf8', input, shell: false });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${result.stderr}`);
  return result.stdout;
}

describe('the generated API types', () => {
  it('match openapi/powercontext.yaml (run `pnpm --filter @powercontext/client generate` after changing it)', () => {
    // The same two steps as the package's `generate` script, to stdout instead of the file.
    const bin = (name: string, root = '..') =>
      fileURLToPath(new URL(`${root}/node_modules/.bin/${name}`, import.meta.url));
    const generated = run(bin('openapi-typescript'), ['../../openapi/powercontext.yaml']);
    const formatted = run(bin('biome', '../../..'), ['format', `--stdin-file-path=${GENERATED}`], generated);
    expect(formatted).toBe(readFileSync(new URL(`../${GENERATED}`, import.meta.url), 'utf8'));
  });
});
