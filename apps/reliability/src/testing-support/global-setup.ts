import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { formatSummary, readReports } from './report.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where each scenario file saves its ScenarioReport. */
    reportsDir: string;
  }
}

/** Gives the scenario files a folder for their reports, and prints the summary table at the end. */
export default function setup(project: TestProject) {
  const began = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'pc-reliability-reports-'));
  project.provide('reportsDir', dir);
  return () => {
    process.stdout.write(formatSummary(readReports(dir), (performance.now() - began) / 1000));
    rmSync(dir, { recursive: true, force: true });
  };
}
