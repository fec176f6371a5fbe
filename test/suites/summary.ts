/** Counts and failure groups of a suite run (lines from the reporter), and the diff against a baseline. */
import type { TestLine } from './hardhatProject.js';

/** A test's identity across runs: suites that title tests with random addresses or hashes get those folded. */
const key = (t: TestLine) => `${t.file} :: ${t.title.replace(/0x[0-9a-fA-F]{8,}/g, '0x…').replace(/\b\d{10,}\b/g, 'N')}`;

/** One line of an error message, with addresses, hashes and numbers folded, to group alike failures. */
export function errorShape(message: string | undefined): string {
  const first = (message ?? '').split('\n').find((l) => l.trim() !== '') ?? '';
  return first
    .replace(/0x[0-9a-fA-F]{8,}/g, '0x…')
    .replace(/\b\d{3,}n?\b/g, 'N')
    .trim()
    .slice(0, 160);
}

export interface Counts {
  passed: number;
  failed: number;
  pending: number;
  hooks: number;
}

export function counts(lines: TestLine[]): Counts {
  return {
    passed: lines.filter((t) => t.state === 'passed').length,
    failed: lines.filter((t) => t.state === 'failed' && !t.hook).length,
    pending: lines.filter((t) => t.state === 'pending').length,
    hooks: lines.filter((t) => t.state === 'failed' && t.hook).length,
  };
}

export function countLine(name: string, lines: TestLine[]): string {
  const c = counts(lines);
  return `${name}: ${c.passed} passed, ${c.failed} failed${c.hooks ? `, ${c.hooks} failed hooks (the tests after them did not run)` : ''}${c.pending ? `, ${c.pending} pending` : ''}`;
}

function grouped<K>(items: TestLine[], by: (t: TestLine) => K): [K, TestLine[]][] {
  const m = new Map<K, TestLine[]>();
  for (const t of items) m.set(by(t), [...(m.get(by(t)) ?? []), t]);
  return [...m].sort((a, b) => b[1].length - a[1].length);
}

/** The failures grouped by test file and by error message, as printable lines. */
export function failureReport(lines: TestLine[], maxGroups = 60): string[] {
  const failed = lines.filter((t) => t.state === 'failed');
  if (failed.length === 0) return ['no failures'];
  const out = ['failures by file:'];
  for (const [file, ts] of grouped(failed, (t) => t.file)) out.push(`  ${String(ts.length).padStart(5)}  ${file}`);
  out.push('failures by error:');
  for (const [shape, ts] of grouped(failed, (t) => errorShape(t.error)).slice(0, maxGroups)) {
    out.push(`  ${String(ts.length).padStart(5)}  ${shape}`);
    out.push(`         e.g. ${ts[0]!.file} :: ${ts[0]!.title}`);
  }
  return out;
}

/** Tests the baseline passed that the target failed or never ran (a failed hook before them). */
export function regressions(baseline: TestLine[], target: TestLine[]): { failed: TestLine[]; missing: TestLine[] } {
  // Tests alike once folded are matched in the order they ran.
  const got = new Map<string, TestLine[]>();
  for (const t of target) got.set(key(t), [...(got.get(key(t)) ?? []), t]);
  const failed: TestLine[] = [];
  const missing: TestLine[] = [];
  for (const b of baseline.filter((t) => t.state === 'passed')) {
    const t = got.get(key(b))?.shift();
    if (t === undefined) missing.push(b);
    else if (t.state === 'failed') failed.push(t);
  }
  return { failed, missing };
}
