import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors/validation-error.js';
import { createFakeEmbedder } from '../testing/fake-embedder.js';
import { InMemoryMemoryStore } from '../testing/in-memory-store.js';
import { noSearchPolicy } from '../testing/no-search-policy.js';
import { type ImportProgress, type ImportRecord, InvalidImportLineError } from './import-entries.js';
import { MemoryService } from './memory-service.js';

function setup() {
  const store = new InMemoryMemoryStore();
  return {
    store,
    service: new MemoryService({ store, embedder: createFakeEmbedder(), retrievalPolicy: noSearchPolicy }),
  };
}

function records(count: number, from = 1): ImportRecord[] {
  return Array.from({ length: count }, (_, index) => ({
    line: from + index,
    entry: {
      text: `turn ${from + index}`,
      kind: 'turn',
      position: { sourceId: 'chat', order: from + index },
    },
  }));
}

async function* streamed(items: readonly ImportRecord[]) {
  for (const item of items) {
    await Promise.resolve();
    yield item;
  }
}

async function activeTexts(service: MemoryService, scope: string) {
  const page = await service.list(scope, { limit: 200 });
  return page.entries.map((entry) => entry.text).sort();
}

describe('MemoryService.import', () => {
  it('stores a stream in batches, one revision per batch, and reports progress after each', async () => {
    const { service } = setup();
    const seen: ImportProgress[] = [];
    const summary = await service.import('s', streamed(records(7)), {
      batchSize: 3,
      onProgress: (progress) => seen.push(progress),
    });
    expect(summary).toMatchObject({ entries: 7, created: 7, duplicates: 0, batches: 3, line: 7 });
    expect(summary.memory?.revision).toBe(3);
    expect(summary.entriesPerSecond).toBeGreaterThan(0);
    expect(seen.map((progress) => [progress.entries, progress.line, progress.memory?.revision])).toEqual([
      [3, 3, 1],
      [6, 6, 2],
      [7, 7, 3],
    ]);
    const listed = await service.list('s', { limit: 10 });
    expect(listed.entries.map((entry) => entry.position?.order)).toHaveLength(7);
  });

  it('stores nothing twice when re-run after an interruption', async () => {
    const { service } = setup();
    const all = records(10);
    const controller = new AbortController();
    await expect(
      service.import('s', all, {
        batchSize: 4,
        signal: controller.signal,
        onProgress: () => controller.abort(),
      }),
    ).rejects.toThrow();
    expect(await activeTexts(service, 's')).toHaveLength(4);

    const again = await service.import('s', all, { batchSize: 4 });
    expect(again).toMatchObject({ entries: 10, created: 6, duplicates: 4 });
    expect(await activeTexts(service, 's')).toEqual(
      all.map((r) => (r.entry as { text: string }).text).sort(),
    );
  });

  it('names the line and the field of a bad entry and writes none of its batch', async () => {
    const { service } = setup();
    const items = [
      ...records(5),
      { line: 9, entry: { text: 'fine', kind: 'turn' } },
      { line: 12, entry: { text: 'bad', position: { sourceId: 'chat', order: 'first' } } },
      { line: 13, entry: { text: 'after' } },
    ];
    const error = await service.import('s', items, { batchSize: 5 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidImportLineError);
    expect(error).toBeInstanceOf(ValidationError);
    const invalid = error as InvalidImportLineError;
    expect(invalid.code).toBe('invalid_request');
    expect(invalid.line).toBe(12);
    expect(invalid.issues).toEqual([
      { field: 'position.order', rule: 'position.order must be a number or an array of numbers' },
    ]);
    expect(invalid.message).toBe(
      'Invalid line 12: position.order: position.order must be a number or an array of numbers',
    );
    expect(invalid.stored).toMatchObject({ entries: 5, created: 5, line: 5, batches: 1 });
    // The first batch is stored; of the second (lines 9, 12, 13) nothing, not even line 9.
    expect(await activeTexts(service, 's')).toEqual(
      records(5)
        .map((r) => (r.entry as { text: string }).text)
        .sort(),
    );
  });

  it('names unknown fields and non-object lines', async () => {
    const { service } = setup();
    const unknown = (await service
      .import('s', [{ line: 3, entry: { text: 'x', colour: 'red' } }])
      .catch((caught: unknown) => caught)) as InvalidImportLineError;
    expect(unknown.issues).toEqual([{ field: 'colour', rule: 'is not a known field' }]);
    const scalar = (await service
      .import('s', [{ line: 4, entry: 'just text' }])
      .catch((caught: unknown) => caught)) as InvalidImportLineError;
    expect(scalar.line).toBe(4);
    expect(scalar.issues[0]?.field).toBe('(entry)');
    expect(await service.list('s')).toMatchObject({ memory: undefined, entries: [] });
  });

  it('refuses a batch size outside 1..1000 before reading anything', async () => {
    const { service } = setup();
    let read = 0;
    const counting = (function* () {
      read += 1;
      yield* records(1);
    })();
    for (const batchSize of [0, 1001, 2.5]) {
      await expect(service.import('s', counting, { batchSize })).rejects.toThrow(
        'batchSize: batchSize must be an integer within 1..1000',
      );
    }
    expect(read).toBe(0);
  });

  it('counts duplicates inside the stream once stored', async () => {
    const { service } = setup();
    const summary = await service.import('s', [
      { line: 1, entry: { text: 'same' } },
      { line: 2, entry: { text: 'same' } },
      { line: 3, entry: { text: 'other' } },
    ]);
    expect(summary).toMatchObject({ entries: 3, created: 2, duplicates: 1, batches: 1 });
  });
});

describe('MemoryService.import with reader issues', () => {
  it('fails the batch of a record whose reader found a problem, naming its line', async () => {
    const { service } = setup();
    const error = (await service
      .import('s', [
        { line: 1, entry: { text: 'fine' } },
        { line: 2, entry: undefined, issues: [{ field: '(line)', rule: 'must be one JSON object' }] },
      ])
      .catch((caught: unknown) => caught)) as InvalidImportLineError;
    expect(error).toBeInstanceOf(InvalidImportLineError);
    expect([error.line, error.issues]).toEqual([2, [{ field: '(line)', rule: 'must be one JSON object' }]]);
    expect(await service.list('s')).toMatchObject({ memory: undefined, entries: [] });
  });
});
