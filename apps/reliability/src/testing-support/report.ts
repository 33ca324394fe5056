import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HttpResult } from './http.js';

/** What one scenario did, for the summary table printed at the end of the run. */
export interface ScenarioReport {
  /** Sort key and name, e.g. "1 model faults (fail_closed)". */
  scenario: string;
  requests: number;
  faults: number;
  /** Error answers (and transport failures) by code, expected ones included. */
  errors: Record<string, number>;
  writesAcked: number;
  writesFound: number;
  /** One short line of figures (latencies, memory), printed under the table. */
  notes: string[];
}

/** Collects the figures of one scenario; `save` writes them where the global teardown reads them. */
export class Tally {
  readonly report: ScenarioReport;

  constructor(scenario: string) {
    this.report = { scenario, requests: 0, faults: 0, errors: {}, writesAcked: 0, writesFound: 0, notes: [] };
  }

  /** Counts one request and, when it failed, its kind. Returns the result for chaining. */
  record<T>(result: HttpResult<T>): HttpResult<T> {
    this.report.requests += 1;
    if (result.errorKind !== undefined) this.error(result.errorKind);
    return result;
  }

  /** Counts a request that was not sent through `send` (MCP JSON-RPC, ...). */
  count(requests = 1): void {
    this.report.requests += requests;
  }

  error(kind: string): void {
    this.report.errors[kind] = (this.report.errors[kind] ?? 0) + 1;
  }

  fault(count = 1): void {
    this.report.faults += count;
  }

  writes(acked: number, found: number): void {
    this.report.writesAcked += acked;
    this.report.writesFound += found;
  }

  note(line: string): void {
    this.report.notes.push(line);
  }

  save(dir: string): void {
    mkdirSync(dir, { recursive: true });
    const file = this.report.scenario.replace(/[^A-Za-z0-9]+/gu, '-').toLowerCase();
    writeFileSync(join(dir, `${file}.json`), JSON.stringify(this.report));
  }
}

export function readReports(dir: string): ScenarioReport[] {
  let files: string[];
  try {
    files = readdirSync(dir).filter((file) => file.endsWith('.json'));
  } catch {
    return [];
  }
  return files
    .map((file) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as ScenarioReport)
    .sort((a, b) => a.scenario.localeCompare(b.scenario, 'en', { numeric: true }));
}

/** The plain-text summary table: one row per scenario, then the notes. */
export function formatSummary(reports: readonly ScenarioReport[], wallSeconds: number): string {
  const header = ['scenario', 'requests', 'faults', 'errors by kind', 'writes acked/found'];
  const rows = reports.map((report) => [
    report.scenario,
    String(report.requests),
    String(report.faults),
    Object.entries(report.errors)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([kind, count]) => `${kind}=${count}`)
      .join(' ') || '-',
    report.writesAcked === 0 && report.writesFound === 0
      ? '-'
      : `${report.writesAcked}/${report.writesFound}`,
  ]);
  const totals = [
    'total',
    String(reports.reduce((sum, report) => sum + report.requests, 0)),
    String(reports.reduce((sum, report) => sum + report.faults, 0)),
    '',
    `${reports.reduce((sum, report) => sum + report.writesAcked, 0)}/${reports.reduce((sum, report) => sum + report.writesFound, 0)}`,
  ];
  // The errors column wraps at word boundaries so the table stays readable in a CI log.
  const errorWidth = 60;
  const wrap = (text: string) => {
    const lines: string[] = [];
    let line = '';
    for (const word of text.split(' ')) {
      if (line !== '' && line.length + 1 + word.length > errorWidth) {
        lines.push(line);
        line = word;
      } else line = line === '' ? word : `${line} ${word}`;
    }
    return [...lines, line];
  };
  const all = [header, ...rows, totals];
  const widths = header.map((_, column) =>
    column === 3
      ? Math.min(
          errorWidth,
          Math.max(...all.map((row) => Math.max(...wrap(row[column]!).map((l) => l.length)))),
        )
      : Math.max(...all.map((row) => row[column]!.length)),
  );
  const rule = widths.map((width) => '-'.repeat(width)).join('-+-');
  const render = (row: string[]) => {
    const cells = row.map((cell, column) => (column === 3 ? wrap(cell) : [cell]));
    const height = Math.max(...cells.map((cell) => cell.length));
    return Array.from({ length: height }, (_, line) =>
      cells
        .map((cell, column) => {
          const text = cell[line] ?? '';
          return column === 1 || column === 2 ? text.padStart(widths[column]!) : text.padEnd(widths[column]!);
        })
        .join(' | ')
        .trimEnd(),
    ).join('\n');
  };
  const lines = [
    '',
    'Reliability suite summary',
    render(header),
    rule,
    ...rows.map(render),
    rule,
    render(totals),
    '',
    ...reports.flatMap((report) => report.notes.map((note) => `${report.scenario}: ${note}`)),
    `wall time: ${wallSeconds.toFixed(1)} s`,
    '',
  ];
  return lines.join('\n');
}
