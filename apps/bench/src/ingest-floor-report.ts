import { z } from 'zod';

/** The ingest floor's figures in scale.json (ingest-floor.ts measures them). */
export const ingestFloorSchema = z.strictObject({
  entries: z.int().min(0),
  seconds: z.number().min(0),
  entries_per_second: z.number().min(0),
  /** The product's entries/s over the floor's, the same batches interleaved (1 = at the floor). */
  product_ratio: z.number().min(0),
});
export type IngestFloorResult = z.infer<typeof ingestFloorSchema>;

/** The ingest floor table of scale.md: product against floor per store and size. */
export function ingestFloorTable(
  sizes: readonly {
    entries: number;
    stores: readonly (
      | {
          measured: true;
          store: string;
          ingest: { entries_per_second: number };
          ingest_floor?: IngestFloorResult;
        }
      | { measured: false }
    )[];
  }[],
): string[] {
  const lines = [
    '| entries | store | product entries/s | floor entries/s | product/floor |',
    '|---:|---|---:|---:|---:|',
  ];
  for (const size of sizes) {
    for (const store of size.stores) {
      if (!store.measured || !store.ingest_floor) continue;
      const floor = store.ingest_floor;
      lines.push(
        `| ${size.entries.toLocaleString('en-US')} | ${store.store} | ${store.ingest.entries_per_second.toFixed(0)} | ` +
          `${floor.entries_per_second.toFixed(0)} | ${floor.product_ratio.toFixed(2)} |`,
      );
    }
  }
  return lines.length > 2 ? lines : [];
}
