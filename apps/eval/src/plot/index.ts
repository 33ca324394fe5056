import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

/** One curve: a run (system, mode, ...) and its recall at each cut-off k. */
export interface RecallRun {
  /** Legend entry; give every run its own label (runs sharing a label share a line). */
  label: string;
  points: { k: number; recall: number }[];
}

/** The cut-offs the LoCoMo report uses; the x axis is ticked at exactly these. */
const K_TICKS = [1, 5, 10, 25, 30, 50];

/** The Vega-Lite specification of the chart: one line (with point marks) per run. */
export function recallChartSpec(runs: readonly RecallRun[]): TopLevelSpec {
  const values = runs.flatMap((run) =>
    run.points.map((point) => ({ label: run.label, k: point.k, recall: point.recall })),
  );
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: 'Recall@k',
    width: 560,
    height: 360,
    background: 'white',
    data: { values },
    mark: { type: 'line', point: true },
    encoding: {
      x: {
        field: 'k',
        type: 'quantitative',
        title: 'k',
        scale: { domain: [0, 50], nice: false },
        axis: { values: K_TICKS, grid: true },
      },
      y: {
        field: 'recall',
        type: 'quantitative',
        title: 'recall@k',
        scale: { domain: [0, 1] },
        axis: { format: '.1f', grid: true },
      },
      color: {
        field: 'label',
        type: 'nominal',
        title: 'run',
        // Legend in the order the runs were given, not alphabetical.
        sort: runs.map((run) => run.label),
      },
      order: { field: 'k', type: 'quantitative' },
    },
  };
}

/**
 * Renders recall@k curves as an SVG document with Vega-Lite (compiled to Vega) and Vega's headless
 * SVG renderer: no browser, no canvas package (text widths are estimated).
 */
export async function renderRecallSvg(runs: readonly RecallRun[]): Promise<string> {
  const vegaSpec = compile(recallChartSpec(runs)).spec;
  const view = new View(parse(vegaSpec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
