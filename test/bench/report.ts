// Side-by-side result tables (plain text for the terminal, Markdown for BENCHMARKS.md).

import os from 'node:os';
import type { Metrics } from './harness.js';

/** What one scenario produced on one node. */
export type Outcome =
  | { kind: 'ok'; metrics: Metrics }
  | { kind: 'skipped'; reason: string }
  | { kind: 'failed'; error: string };

export interface ScenarioResults {
  scenario: string;
  /** Keyed by node label. */
  byNode: Map<string, Outcome>;
}

interface Row {
  scenario: string;
  metric: string;
  unit: string;
  cells: string[];
}

export function formatValue(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  const a = Math.abs(v);
  if (Number.isInteger(v)) return v.toLocaleString('en-US');
  if (a >= 100) return Math.round(v).toLocaleString('en-US');
  if (a >= 10) return v.toFixed(1);
  return v.toFixed(2);
}

function rows(results: ScenarioResults[], labels: string[]): Row[] {
  const out: Row[] = [];
  for (const r of results) {
    // Metric names in first-seen order across nodes.
    const metrics = new Map<string, string>();
    for (const label of labels) {
      const o = r.byNode.get(label);
      if (o?.kind === 'ok') for (const [k, m] of Object.entries(o.metrics)) if (!metrics.has(k)) metrics.set(k, m.unit);
    }
    if (metrics.size === 0) metrics.set('—', '');
    for (const [metric, unit] of metrics) {
      const cells = labels.map((label) => {
        const o = r.byNode.get(label);
        if (!o) return '';
        if (o.kind === 'skipped') return 'n/a';
        if (o.kind === 'failed') return 'error';
        const m = o.metrics[metric];
        return m ? formatValue(m.value) : '';
      });
      out.push({ scenario: r.scenario, metric, unit, cells });
    }
  }
  return out;
}

export function plainTable(results: ScenarioResults[], labels: string[]): string {
  const header = ['scenario', 'metric', ...labels, 'unit'];
  const body = rows(results, labels).map((r) => [r.scenario, r.metric, ...r.cells, r.unit]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const numeric = (i: number) => i >= 2 && i < 2 + labels.length;
  const line = (cols: string[]) =>
    cols.map((c, i) => (numeric(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  const out = [line(header), widths.map((w) => '-'.repeat(w)).join('  ')];
  let prev = '';
  for (const b of body) {
    const shown = [...b];
    if (b[0] === prev) shown[0] = '';
    prev = b[0]!;
    out.push(line(shown));
  }
  return out.join('\n');
}

export function markdownTable(results: ScenarioResults[], labels: string[]): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  const out = [
    `| scenario | metric | ${labels.map(esc).join(' | ')} | unit |`,
    `| --- | --- | ${labels.map(() => '---:').join(' | ')} | --- |`,
  ];
  for (const r of rows(results, labels)) {
    out.push(`| ${esc(r.scenario)} | ${esc(r.metric)} | ${r.cells.map(esc).join(' | ')} | ${esc(r.unit)} |`);
  }
  return out.join('\n');
}

/** One line describing the machine and versions, for the top of a Markdown report. */
export function environmentLine(anvilVersion: string | undefined): string {
  const cpus = os.cpus();
  return [
    new Date().toISOString(),
    cpus[0]?.model.trim() ?? 'unknown CPU',
    `${cpus.length} cores`,
    `Node ${process.version}`,
    anvilVersion ?? 'anvil not installed',
  ].join(' · ');
}
