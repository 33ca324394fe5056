import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type {
  ArtifactRef,
  ChangesResponse,
  ListEntriesRequest,
  ListEntriesResponse,
  PrepareContextRequest,
  PrepareContextResponse,
  ScopeSummaryResponse,
  SearchHit,
  SearchRequest,
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
    // Five responses, and the `scopes` items of search and prepare context (issue 29).
    expect(source.match(/memory: components\['schemas'\]\['ArtifactRef'\] \| null;/gu)).toHaveLength(7);
    expect(source).not.toContain('Record<string, never> | null');
  });
});

describe('several scopes in one search (issue 29)', () => {
  it('types scope_ids, min_revisions, scopes and each hit’s scope_id', () => {
    // Checked by `pnpm typecheck`; the run-time part reads the generated source.
    expectTypeOf<SearchRequest['scope_ids']>().toEqualTypeOf<string[] | undefined>();
    expectTypeOf<PrepareContextRequest['scope_ids']>().toEqualTypeOf<string[] | undefined>();
    expectTypeOf<SearchRequest['scope_id']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<SearchHit['scope_id']>().toEqualTypeOf<string>();
    expectTypeOf<
      NonNullable<SearchResponse['scopes']>[number]['memory']
    >().toEqualTypeOf<ArtifactRef | null>();
    const source = readFileSync(new URL(`../${GENERATED}`, import.meta.url), 'utf8');
    expect(source.match(/min_revisions\?: \{/gu)).toHaveLength(2);
  });
});

describe('the list’s text filter (RFC 0014, "List")', () => {
  it('types text as an optional string of the list request', () => {
    expectTypeOf<ListEntriesRequest['text']>().toEqualTypeOf<string | undefined>();
  });
});
