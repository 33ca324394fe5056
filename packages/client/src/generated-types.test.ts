import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type {
  ArtifactRef,
  ChangesResponse,
  ListEntriesResponse,
  PrepareContextResponse,
  ScopeSummaryResponse,
  SearchResponse,
} from './api-types.js';

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const GENERATED = 'src/generated/openapi.ts';

function run(command: string, args: string[], input?: string): string {
  const result = spawnSync(command, args, { cwd: PACKAGE_DIR, encoding: 'utf8', input, shell: false });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${result.stderr}`);
  return result.stdout;
}

describe('the generated API types', () => {
  it('match openapi/powercontext.yaml (run `pnpm openapi:generate` after changing it)', () => {
    // The same two steps as the package's `generate` script, to stdout instead of the file.
    const bin = (name: string, root = '..') =>
      fileURLToPath(new URL(`${root}/node_modules/.bin/${name}`, import.meta.url));
    const generated = run(bin('openapi-typescript'), ['../../openapi/powercontext.yaml']);
    const formatted = run(bin('biome', '../../..'), ['format', `--stdin-file-path=${GENERATED}`], generated);
    expect(formatted).toBe(readFileSync(new URL(`../${GENERATED}`, import.meta.url), 'utf8'));
  });
});

describe('a scope never written', () => {
  it('types `memory` as ArtifactRef | null on every response that may carry null', () => {
    // Checked by `pnpm typecheck` (tsc -b compiles the tests): on 6a3d005 the generated type was
    // `ArtifactRef & (Record<string, never> | null)`, under which `res.memory.revision` compiled.
    expectTypeOf<SearchResponse['memory']>().toEqualTypeOf<ArtifactRef | null>();
    expectTypeOf<ListEntriesResponse['memory']>().toEqualTypeOf<ArtifactRef | null>();
    expectTypeOf<ChangesResponse['memory']>().toEqualTypeOf<ArtifactRef | null>();
    expectTypeOf<PrepareContextResponse['memory']>().toEqualTypeOf<ArtifactRef | null>();
    expectTypeOf<ScopeSummaryResponse['memory']>().toEqualTypeOf<ArtifactRef | null>();
    // And at run time, the generated source says so in as many words.
    const source = readFileSync(new URL(`../${GENERATED}`, import.meta.url), 'utf8');
    expect(source.match(/memory: components\['schemas'\]\['ArtifactRef'\] \| null;/gu)).toHaveLength(5);
    expect(source).not.toContain('Record<string, never> | null');
  });
});
