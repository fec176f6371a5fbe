/**
 * Coverage and gas reports from the node's own execution (--coverage, --gas-report): what the
 * RPC methods read while the node runs, and what is written when it stops.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Coverage } from './coverage.js';
import { istanbul, lcov, lineCounts, summaryTable, totals, type Totals } from './formats.js';
import { GasReport, gasTable } from './gas.js';

export { Coverage } from './coverage.js';
export { GasReport, gasTable, CODE_SIZE_LIMIT, type GasReportJson, type GasTx, type GasReads } from './gas.js';
export { istanbul, lcov, summaryTable } from './formats.js';

/** What a node with --coverage and/or --gas-report keeps. */
export interface Reports {
  readonly coverage?: Coverage;
  readonly gas?: GasReport;
}

/** The formats node_coverage answers in. */
export type CoverageFormat = 'istanbul' | 'lcov' | 'summary' | 'source';

/** A file as the explorer shows it: every line, with the most its statements ran (null: no statement starts there). */
export interface SourceCoverage {
  path: string;
  lines: Array<{ text: string; hits: number | null }>;
  totals: Totals;
}

export function coverageIn(coverage: Coverage, format: CoverageFormat): unknown {
  const counts = coverage.counts();
  if (format === 'lcov') return lcov(counts);
  if (format === 'summary') return summaryTable(counts, process.cwd());
  if (format === 'source') {
    return counts.map((c): SourceCoverage => {
      const hits = lineCounts(c);
      const file = c.model.file;
      const lines = Array.from({ length: file.lineCount }, (_, i) => ({ text: file.line(i + 1), hits: hits.get(i + 1) ?? null }));
      return { path: c.path, lines, totals: totals(c) };
    });
  }
  return istanbul(counts);
}

/** Write `lcov.info` and `coverage-final.json` into `dir`; returns the summary table. */
export async function writeCoverage(coverage: Coverage, dir: string): Promise<string> {
  const counts = coverage.counts();
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'lcov.info'), lcov(counts));
  await writeFile(join(dir, 'coverage-final.json'), JSON.stringify(istanbul(counts)));
  return summaryTable(counts, process.cwd());
}

/** Write the gas report's JSON to `file`; returns its table. */
export async function writeGasReport(gas: GasReport, file: string | undefined): Promise<string> {
  const report = await gas.report();
  if (file !== undefined) {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, JSON.stringify(report, null, 2) + '\n');
  }
  return gasTable(report);
}
