import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
const rfc0007 = readFileSync(new URL('../../../rfcs/0007-contextual-indexing.md', import.meta.url), 'utf8');
const rfc0013 = readFileSync(new URL('../../../rfcs/0013-search-channels.md', import.meta.url), 'utf8');

/** Final R@10 of a row of RFC 0007's full-run table, e.g. "powercontext hybrid, context". */
function rfcRecallAt10(run: string): string {
  const row = rfc0007.split('\n').find((line) => line.startsWith(`| ${run} `));
  if (!row) throw new Error(`RFC 0007 has no row "${run}"`);
  return row.split('|').map((cell) => cell.trim())[4]!;
}

describe('README facts (issue 15)', () => {
  it('writes the example keys file outside the repository', () => {
    const block = readme.slice(
      readme.indexOf('KEY=$(openssl rand'),
      readme.indexOf('```', readme.indexOf('KEY=$(openssl rand')),
    );
    expect(block).toContain('cat > ~/.config/powercontext/keys.json');
    expect(block).not.toMatch(/cat > keys\.json/u);
    expect(block).toContain('--api-keys-file ~/.config/powercontext/keys.json');
  });

  it('quotes the same LoCoMo recall@10 as RFC 0007, everywhere', () => {
    const hybrid = rfcRecallAt10('powercontext hybrid, context');
    const fts = rfcRecallAt10('powercontext fts, context');
    const ftsNone = rfcRecallAt10('powercontext fts, none');
    expect(readme).toContain(`from ${ftsNone} to ${fts}`);
    expect(readme).toContain(`hybrid ${hybrid}, full text ${fts}`);
    // The pre-context figures appear only as history, never as the current result.
    expect(readme).not.toMatch(/final recall@10: full text 63\.9/u);
  });

  it('quotes the same LoCoMo recall@10 per search channel set as RFC 0013', () => {
    const recall = (run: string) => {
      const row = rfc0013.split('\n').find((line) => line.startsWith(`| ${run} `));
      if (!row) throw new Error(`RFC 0013 has no row "${run}"`);
      return row.split('|').map((cell) => cell.trim())[4]!;
    };
    // The README wraps its lines: compare with white space collapsed.
    expect(readme.replace(/\s+/gu, ' ')).toContain(
      `fts and vector (the default) ${recall('fts, vector (default)')}, with entity ${recall('+ entity')}, ` +
        `with graph ${recall('+ graph')}, with both ${recall('+ entity + graph')}`,
    );
  });

  it('says plainly that forget keeps the text in history', () => {
    expect(readme).toContain('**`forget` does not erase.**');
    expect(readme).toMatch(/its text stays in the store's history/u);
    expect(readme).not.toMatch(/a `purge` is planned/u);
  });

  it('says that purge erases the text, and that it takes the purge permission', () => {
    expect(readme).toContain('**`purge` erases.**');
    expect(readme).toMatch(/it needs the key's `purge` permission \(`write` is not enough\)/u);
    expect(readme).toContain('powercontext memory purge --scope S --entry ID --yes');
  });
});
