import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseImportArgs, readJsonLines } from './import-command.js';

const dir = mkdtempSync(join(tmpdir(), 'pc-import-lines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('parseImportArgs', () => {
  it('takes one FILE among the flags, with defaults', () => {
    expect(parseImportArgs(['--scope', 's', 'a.jsonl'])).toEqual({
      command: 'import',
      json: false,
      store: {},
      scope: 's',
      file: 'a.jsonl',
      batchSize: 500,
    });
    expect(
      parseImportArgs(['a.jsonl', '--json', '--batch-size=20', '--data-dir', 'd', '--scope=s']),
    ).toMatchObject({ file: 'a.jsonl', json: true, batchSize: 20, scope: 's', store: { '--data-dir': 'd' } });
    expect(parseImportArgs(['--scope', 's', '--', '--odd.jsonl'])).toMatchObject({ file: '--odd.jsonl' });
    expect(parseImportArgs(['--scope', 's', 'a.jsonl', '--idempotency-key', 'import-7'])).toMatchObject({
      idempotencyKey: 'import-7',
    });
    expect(parseImportArgs(['--help'])).toBe('help');
  });

  it.each([
    [['--scope', 's', '--scope', 't', 'a'], '--scope may be given once'],
    [['--scope', 's', '--batch-size', 'x', 'a'], '--batch-size must be an integer within 1..1000, got "x"'],
    [['--scope', 's', '--json=1', 'a'], '--json takes no value'],
    [['a', '--scope'], '--scope needs a value'],
    [
      ['--scope', 's', '--idempotency-key', 'k', '--idempotency-key', 'k', 'a'],
      '--idempotency-key may be given once',
    ],
    [
      ['--scope', 's', '--idempotency-key', 'k'.repeat(256), 'a'],
      '--idempotency-key must be at most 255 characters',
    ],
  ])('refuses %j', (argv, message) => {
    expect(() => parseImportArgs(argv)).toThrow(message);
  });
});

describe('readJsonLines', () => {
  it('numbers lines from 1, skips blank ones and names the problems of bad ones in wire terms', async () => {
    const file = join(dir, 'mixed.jsonl');
    writeFileSync(
      file,
      [
        '\uFEFF{"text": "first", "sources": [{"source_id": "chat", "locator": "T1"}], "position": {"source_id": "s", "order": 2}}',
        '',
        '   ',
        '{"text": "broken"',
        '[1, 2]',
        '{"text": "x", "sources": [{"sourceId": "chat"}]}',
        '{"text": "last"}',
      ].join('\r\n'),
    );
    const records = [];
    for await (const record of readJsonLines(file)) records.push(record);
    expect(records).toEqual([
      {
        line: 1,
        entry: {
          text: 'first',
          sources: [{ sourceId: 'chat', locator: 'T1' }],
          position: { sourceId: 's', order: 2 },
        },
      },
      {
        line: 4,
        entry: undefined,
        issues: [{ field: '(line)', rule: 'must be one JSON object (invalid JSON)' }],
      },
      { line: 5, entry: undefined, issues: [{ field: '(line)', rule: 'must be one JSON object' }] },
      {
        line: 6,
        entry: undefined,
        issues: [
          { field: 'sources.0.source_id', rule: 'source_id must be a string' },
          { field: 'sources.0.sourceId', rule: 'is not a known field' },
        ],
      },
      { line: 7, entry: { text: 'last' } },
    ]);
  });
});
