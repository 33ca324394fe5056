import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The worked example of CONTRIBUTING.md (a reranker that calls POST /v1/rerank) is the two files next
// to this one: the build type-checks them and `pnpm test` runs the reranker suite on them. This test
// keeps the guide showing them exactly, so the page cannot drift from code that compiles and passes.
const guide = readFileSync(new URL('../../../../CONTRIBUTING.md', import.meta.url), 'utf8');
const blocks = [...guide.matchAll(/```ts\n(.*?)```/gsu)].map((match) => match[1]);

describe('the worked example in CONTRIBUTING.md', () => {
  for (const file of ['http-reranker.ts', 'http-reranker.conformance.test.ts']) {
    it(`shows ${file} as it is in src/testing-support`, () => {
      const source = readFileSync(new URL(`./${file}`, import.meta.url), 'utf8');
      expect(
        blocks.includes(source),
        `CONTRIBUTING.md must show src/testing-support/${file} verbatim; copy the file into the guide`,
      ).toBe(true);
    });
  }
});
