// The diff's worst case within its bound: two changed middles of 1,000 tokens each (500 words and
// their spaces), a full table of DIFF_MAX_CELLS. `pnpm exec vitest bench --run ui/src/version-diff.bench.ts`
import { bench, describe } from 'vitest';
import { DIFF_MAX_CELLS, diffWords, tokenize } from './version-diff.js';

const words = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, index) => `${prefix}${(index * 7919) % 613}`).join(' ');
const before = `start ${words('a', 500)} end`;
const after = `start ${words('b', 500)} end`;
const cells = (tokenize(before).length - 4) * (tokenize(after).length - 4);
if (cells > DIFF_MAX_CELLS || diffWords(before, after).exact !== true) {
  throw new Error(`the case must fill the table within the bound: ${cells} cells`);
}

describe(`diffWords over ${cells.toLocaleString('en')} cells (bound ${DIFF_MAX_CELLS.toLocaleString('en')})`, () => {
  bench('word by word (exact)', () => {
    diffWords(before, after);
  });
  bench('beyond the bound (one replacement)', () => {
    diffWords(before, after, cells - 1);
  });
});
