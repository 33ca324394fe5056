import { describe, expect, it } from 'vitest';
import { type RecallRun, recallChartSpec, renderRecallSvg } from './index.js';

const RUNS: RecallRun[] = [
  {
    label: 'powercontext hybrid',
    points: [
      { k: 1, recall: 0.3 },
      { k: 5, recall: 0.55 },
      { k: 10, recall: 0.68 },
      { k: 25, recall: 0.79 },
      { k: 30, recall: 0.81 },
      { k: 50, recall: 0.86 },
    ],
  },
  {
    label: 'minisearch fts',
    points: [
      { k: 1, recall: 0.28 },
      { k: 5, recall: 0.56 },
      { k: 10, recall: 0.64 },
    ],
  },
];

describe('renderRecallSvg', () => {
  it('renders an SVG document naming every run', async () => {
    const svg = await renderRecallSvg(RUNS);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    for (const run of RUNS) expect(svg).toContain(run.label);
  });

  it('is deterministic and changes with its input', async () => {
    const svg = await renderRecallSvg(RUNS);
    expect(await renderRecallSvg(RUNS)).toBe(svg);
    const changed = RUNS.map((run, i) =>
      i === 1 ? { ...run, points: run.points.map((p) => ({ ...p, recall: p.recall / 2 })) } : run,
    );
    expect(await renderRecallSvg(changed)).not.toBe(svg);
  });

  it('renders an empty chart when there are no runs', async () => {
    expect((await renderRecallSvg([])).startsWith('<svg')).toBe(true);
  });
});

describe('recallChartSpec', () => {
  it('draws one line per label over k with ticks at the report cut-offs and recall in [0, 1]', () => {
    const spec = recallChartSpec(RUNS) as unknown as {
      data: { values: { label: string; k: number; recall: number }[] };
      encoding: {
        x: { field: string; axis: { values: number[] } };
        y: { field: string; scale: { domain: number[] } };
        color: { field: string; sort: string[] };
      };
    };
    expect(spec.data.values).toHaveLength(9);
    expect(spec.encoding.x.field).toBe('k');
    expect(spec.encoding.x.axis.values).toEqual([1, 5, 10, 25, 30, 50]);
    expect(spec.encoding.y.field).toBe('recall');
    expect(spec.encoding.y.scale.domain).toEqual([0, 1]);
    expect(spec.encoding.color).toMatchObject({
      field: 'label',
      sort: ['powercontext hybrid', 'minisearch fts'],
    });
  });
});
