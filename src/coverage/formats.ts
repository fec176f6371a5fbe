/**
 * Coverage counts in the formats coverage tools read: Istanbul's coverage-final.json (what nyc,
 * codecov and coveralls take), lcov.info (genhtml, codecov, coveralls) and a plain-text summary
 * table (statements / branches / functions / lines per file, as Istanbul's text reporter prints).
 */
import type { SourceText } from '../artifacts/sourceMap.js';
import type { FileCounts } from './coverage.js';
import type { Range } from './model.js';

interface Pos {
  line: number;
  column: number;
}

function pos(file: SourceText, offset: number): Pos {
  const p = file.position(offset);
  return { line: p.line, column: p.column - 1 };
}

function loc(file: SourceText, r: Range): { start: Pos; end: Pos } {
  return { start: pos(file, r.start), end: pos(file, r.start + r.length) };
}

const BRANCH_TYPE = { if: 'if', loop: 'if', ternary: 'cond-expr', and: 'binary-expr', or: 'binary-expr', require: 'if' } as const;

/** Lines with a statement starting on them, and the most any of those statements ran. */
export function lineCounts(c: FileCounts): Map<number, number> {
  const lines = new Map<number, number>();
  c.model.statements.forEach((s, i) => {
    const line = c.model.file.position(s.start).line;
    lines.set(line, Math.max(lines.get(line) ?? 0, c.s[i]!));
  });
  return lines;
}

/** Istanbul's coverage object: `{ [path]: FileCoverage }` (coverage-final.json). */
export function istanbul(counts: readonly FileCounts[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const c of counts) {
    const f = c.model.file;
    const statementMap: Record<string, unknown> = {};
    const s: Record<string, number> = {};
    c.model.statements.forEach((st, i) => {
      statementMap[i] = loc(f, st);
      s[i] = c.s[i]!;
    });
    const fnMap: Record<string, unknown> = {};
    const fc: Record<string, number> = {};
    c.model.functions.forEach((fn, i) => {
      fnMap[i] = { name: fn.name, decl: loc(f, fn.decl), loc: loc(f, fn), line: f.position(fn.start).line };
      fc[i] = c.f[i]!;
    });
    const branchMap: Record<string, unknown> = {};
    const b: Record<string, number[]> = {};
    c.model.branches.forEach((br, i) => {
      const where = loc(f, br);
      branchMap[i] = { loc: where, type: BRANCH_TYPE[br.kind], locations: br.sides.map((side) => (side ? loc(f, side) : where)), line: where.start.line };
      b[i] = [...c.b[i]!];
    });
    const l: Record<string, number> = {};
    for (const [line, n] of lineCounts(c)) l[line] = n;
    out[c.path] = { path: c.path, statementMap, fnMap, branchMap, s, f: fc, b, l };
  }
  return out;
}

/** lcov.info: one record per file (functions, lines, branches). */
export function lcov(counts: readonly FileCounts[]): string {
  let out = '';
  for (const c of counts) {
    const f = c.model.file;
    out += `TN:\nSF:${c.path}\n`;
    const names = new Map<string, number>();
    const fnNames = c.model.functions.map((fn) => {
      const k = (names.get(fn.name) ?? 0) + 1;
      names.set(fn.name, k);
      return k === 1 ? fn.name : `${fn.name}#${k}`;
    });
    c.model.functions.forEach((fn, i) => (out += `FN:${f.position(fn.start).line},${fnNames[i]}\n`));
    c.model.functions.forEach((_, i) => (out += `FNDA:${c.f[i]},${fnNames[i]}\n`));
    out += `FNF:${c.f.length}\nFNH:${c.f.filter((n) => n > 0).length}\n`;
    const lines = [...lineCounts(c)].sort((a, b) => a[0] - b[0]);
    for (const [line, n] of lines) out += `DA:${line},${n}\n`;
    out += `LF:${lines.length}\nLH:${lines.filter(([, n]) => n > 0).length}\n`;
    let found = 0;
    let hit = 0;
    c.model.branches.forEach((br, i) => {
      const line = f.position(br.start).line;
      const counts = c.b[i]!;
      const reached = counts[0] + counts[1] > 0;
      counts.forEach((n, side) => {
        found++;
        if (n > 0) hit++;
        out += `BRDA:${line},${i},${side},${reached ? n : '-'}\n`;
      });
    });
    out += `BRF:${found}\nBRH:${hit}\nend_of_record\n`;
  }
  return out;
}

export interface Totals {
  statements: [number, number];
  branches: [number, number];
  functions: [number, number];
  lines: [number, number];
}

export function totals(c: FileCounts): Totals {
  const lines = [...lineCounts(c).values()];
  const pairs = c.b.flat();
  return {
    statements: [c.s.filter((n) => n > 0).length, c.s.length],
    branches: [pairs.filter((n) => n > 0).length, pairs.length],
    functions: [c.f.filter((n) => n > 0).length, c.f.length],
    lines: [lines.filter((n) => n > 0).length, lines.length],
  };
}

const pct = ([hit, all]: [number, number]) => (all === 0 ? '100' : String(Math.floor((hit / all) * 10000) / 100));

/** The summary table: % statements, branches, functions and lines per file and in all, and the lines never run. */
export function summaryTable(counts: readonly FileCounts[], root?: string): string {
  const rows: string[][] = [];
  const all: Totals = { statements: [0, 0], branches: [0, 0], functions: [0, 0], lines: [0, 0] };
  for (const c of counts) {
    const t = totals(c);
    for (const k of Object.keys(all) as Array<keyof Totals>) {
      all[k][0] += t[k][0];
      all[k][1] += t[k][1];
    }
    const missed = [...lineCounts(c)].filter(([, n]) => n === 0).map(([l]) => l).sort((a, b) => a - b);
    const name = root !== undefined && c.path.startsWith(root + '/') ? c.path.slice(root.length + 1) : c.path;
    rows.push([` ${name}`, pct(t.statements), pct(t.branches), pct(t.functions), pct(t.lines), missedText(missed)]);
  }
  rows.push(['All files', pct(all.statements), pct(all.branches), pct(all.functions), pct(all.lines), '']);
  const head = ['File', '% Stmts', '% Branch', '% Funcs', '% Lines', 'Uncovered Lines'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 || i === 5 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ');
  const rule = widths.map((w) => '-'.repeat(w)).join('-|-');
  return [rule, line(head), rule, ...rows.slice(0, -1).map(line), rule, line(rows[rows.length - 1]!), rule].join('\n') + '\n';
}

/** `12,15-18,40` */
function missedText(lines: number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    let j = i;
    while (j + 1 < lines.length && lines[j + 1] === lines[j]! + 1) j++;
    parts.push(j > i ? `${lines[i]}-${lines[j]}` : String(lines[i]));
    i = j;
  }
  return parts.join(',');
}
