import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIGURATION_TABLE } from './configuration-table.js';

describe('README configuration table', () => {
  it('lists exactly the settings of CONFIGURATION_TABLE, with their defaults', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const rows = readme
      .split('\n')
      .filter((line) => line.startsWith('| `POWERCONTEXT_'))
      .map((line) => line.split('|').map((cell) => cell.trim()));
    expect(rows.map((cells) => cells[1]!.replaceAll('`', ''))).toEqual(
      CONFIGURATION_TABLE.map((row) => row.name),
    );
    for (const [index, row] of CONFIGURATION_TABLE.entries()) {
      expect(rows[index]![2]).toBe(row.default);
      expect(rows[index]![3]).toBe(row.range);
      expect(rows[index]![4]).toBe(row.origin);
    }
  });
});
