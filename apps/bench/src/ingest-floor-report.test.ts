import { describe, expect, it } from 'vitest';
import { ingestFloorSchema, ingestFloorTable } from './ingest-floor-report.js';

const floor = { entries: 1000, seconds: 1.25, entries_per_second: 800, product_ratio: 0.75 };

describe('the ingest floor report', () => {
  it('prints product, floor and their ratio per store and size', () => {
    expect(
      ingestFloorTable([
        {
          entries: 10_000,
          stores: [
            { measured: true, store: 'pglite', ingest: { entries_per_second: 600 }, ingest_floor: floor },
            { measured: false },
            { measured: true, store: 'postgres', ingest: { entries_per_second: 900 } },
          ],
        },
      ]),
    ).toEqual([
      '| entries | store | product entries/s | floor entries/s | product/floor |',
      '|---:|---|---:|---:|---:|',
      '| 10,000 | pglite | 600 | 800 | 0.75 |',
    ]);
  });

  it('prints nothing when no store measured a floor, and checks the figures', () => {
    expect(ingestFloorTable([{ entries: 10, stores: [{ measured: false }] }])).toEqual([]);
    expect(ingestFloorSchema.safeParse(floor).success).toBe(true);
    expect(ingestFloorSchema.safeParse({ ...floor, product_ratio: -1 }).success).toBe(false);
  });
});
