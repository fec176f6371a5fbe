/**
 * Coverage from the node's own execution: the chain counts the instructions of code that has
 * source (CoverageRecorder), and here the counts become Solidity statements, branches,
 * functions and lines through the artifacts' source maps and ASTs (model.ts).
 *
 * An instruction counts for the innermost statement whose range holds its source range; a
 * function's calls are the runs of the instructions solc maps to the whole function (its entry
 * and exit); a branch's sides are told by the JUMPI solc maps to the whole construct (the `if`,
 * the loop, the ternary, the `&&` / `||`, the `require` call): where its fall-through leads
 * decides which side falling through is, and jumping is the other.
 */
import { join, isAbsolute } from 'node:path';
import type { CodeCounters, CoverageRecorder } from '../chain/core/coverage.js';
import { decodeSourceMap, type MapEntry } from '../artifacts/sourceMap.js';
import type { Compilation, MappedCode, SourceIndex } from '../artifacts/sources.js';
import { contains, fileModel, type Branch, type FileModel, type Range } from './model.js';

const OP_JUMPI = 0x57;
const OP_JUMPDEST = 0x5b;
/** How far past a decision's fall-through the first instruction with a source is looked for. */
const SCAN = 32;

/** One file's counts, in the order of its model's items. */
export interface FileCounts {
  /** Absolute when the project folder is known, else the source name as compiled. */
  readonly path: string;
  readonly model: FileModel;
  readonly s: number[];
  readonly f: number[];
  readonly b: Array<[number, number]>;
}

interface PcItem {
  readonly pc: number;
  readonly file: FileModel;
  /** Innermost statement, -1 when none. */
  readonly stmt: number;
  /** Innermost function, -1 when none; `exact` when the instruction maps to the whole function. */
  readonly fn: number;
  readonly exact: boolean;
  /** The branch this JUMPI decides, -1 when none; the side its fall-through takes. */
  readonly branch: number;
  readonly fall: 0 | 1;
}

function hexToBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

const same = (a: Range, b: Range) => a.start === b.start && a.length === b.length;

export class Coverage implements CoverageRecorder {
  private readonly codes = new Map<MappedCode, CodeCounters>();
  private readonly plans = new WeakMap<MappedCode, PcItem[]>();
  private readonly models = new Map<Compilation, Map<number, FileModel | null>>();
  private readonly byPath = new Map<string, FileModel>();

  constructor(private readonly index: SourceIndex) {}

  counters(code: Uint8Array, create: boolean): CodeCounters | undefined {
    const origin = this.index.origin(code, create);
    if (origin === undefined) return undefined;
    let c = this.codes.get(origin);
    if (c === undefined) {
      const size = origin.code.length / 2;
      c = { hits: new Uint32Array(size), jumped: new Uint32Array(size) };
      this.codes.set(origin, c);
    }
    return c;
  }

  /** Forget every count (node_resetCoverage). */
  reset(): void {
    for (const c of this.codes.values()) {
      c.hits.fill(0);
      c.jumped.fill(0);
    }
  }

  /** How many source files have an AST (with none, nothing can be reported). */
  get files(): number {
    this.allModels();
    return this.byPath.size;
  }

  /** The counts of every file with an AST, executed or not, sorted by path. */
  counts(): FileCounts[] {
    this.allModels();
    const out = new Map<FileModel, FileCounts>();
    for (const [path, model] of this.byPath) {
      out.set(model, { path, model, s: model.statements.map(() => 0), f: model.functions.map(() => 0), b: model.branches.map(() => [0, 0] as [number, number]) });
    }
    for (const [origin, counters] of this.codes) this.add(origin, counters, out);
    return [...out.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  private add(origin: MappedCode, c: CodeCounters, out: Map<FileModel, FileCounts>): void {
    const stmt = new Map<FileModel, Map<number, number>>();
    const exact = new Map<FileModel, Map<number, number>>();
    const inner = new Map<FileModel, Map<number, number>>();
    const bump = (m: Map<FileModel, Map<number, number>>, file: FileModel, i: number, n: number) => {
      let per = m.get(file);
      if (!per) m.set(file, (per = new Map()));
      if ((per.get(i) ?? 0) < n) per.set(i, n);
    };
    for (const item of this.plan(origin)) {
      const n = c.hits[item.pc] ?? 0;
      if (n === 0) continue;
      const counts = out.get(item.file);
      if (!counts) continue;
      if (item.stmt >= 0) bump(stmt, item.file, item.stmt, n);
      if (item.fn >= 0) bump(item.exact ? exact : inner, item.file, item.fn, n);
      if (item.branch >= 0) {
        const jumped = c.jumped[item.pc] ?? 0;
        const b = counts.b[item.branch]!;
        b[item.fall] += n - jumped;
        b[item.fall === 0 ? 1 : 0] += jumped;
      }
    }
    for (const [file, per] of stmt) for (const [i, n] of per) out.get(file)!.s[i]! += n;
    for (const [file, per] of inner) {
      const own = exact.get(file);
      for (const [i, n] of per) if (!own?.has(i)) out.get(file)!.f[i]! += n;
    }
    for (const [file, per] of exact) for (const [i, n] of per) out.get(file)!.f[i]! += n;
  }

  /** For each instruction of `origin` with a source: its statement, function and branch. */
  private plan(origin: MappedCode): PcItem[] {
    let plan = this.plans.get(origin);
    if (plan) return plan;
    plan = [];
    const code = hexToBytes(origin.code);
    const map = decodeSourceMap(origin.sourceMap);
    const generated = new Set([...origin.compilation.generated, ...(origin.generated ?? []).map((g) => g.id)]);
    const entries: Array<MapEntry | undefined> = new Array(code.length);
    let n = 0;
    for (let pc = 0; pc < code.length; pc++) {
      entries[pc] = map[n++];
      const op = code[pc]!;
      if (op >= 0x60 && op <= 0x7f) pc += op - 0x5f;
    }
    const userFile = (e: MapEntry | undefined) => e !== undefined && e.file >= 0 && e.start >= 0 && !generated.has(e.file) && origin.compilation.files.has(e.file);
    for (let pc = 0; pc < code.length; pc++) {
      const e = entries[pc];
      if (!userFile(e)) continue;
      const file = this.model(origin.compilation, e!.file);
      if (!file) continue;
      const r: Range = { start: e!.start, length: e!.length };
      const stmt = innermost(file.statements, r);
      const fn = innermost(file.functions, r);
      const exact = fn >= 0 && same(file.functions[fn]!, r);
      let branch = -1;
      let fall: 0 | 1 = 0;
      if (code[pc] === OP_JUMPI) {
        branch = file.branches.findIndex((b) => same(b, r));
        if (branch >= 0) fall = this.fallSide(file.branches[branch]!, pc + 1, code, entries, e!.file, userFile);
      }
      if (stmt >= 0 || fn >= 0 || branch >= 0) plan.push({ pc, file, stmt, fn, exact, branch, fall });
    }
    this.plans.set(origin, plan);
    return plan;
  }

  /** The side a decision's fall-through takes: where the first instruction after it with a source of its own lies. */
  private fallSide(b: Branch, from: number, code: Uint8Array, entries: Array<MapEntry | undefined>, file: number, userFile: (e: MapEntry | undefined) => boolean): 0 | 1 {
    const other: 0 | 1 = b.inside === 0 ? 1 : 0;
    let seen = 0;
    for (let pc = from; pc < code.length && seen < SCAN; pc++) {
      const e = entries[pc];
      if (e === undefined) continue;
      seen++;
      if (code[pc] === OP_JUMPDEST || !userFile(e)) continue;
      if (e.file !== file) return other;
      const r: Range = { start: e.start, length: e.length };
      if (b.kind !== 'require' && contains(r, b)) continue;
      return contains(b.probe, r) ? b.inside : other;
    }
    return other;
  }

  private model(compilation: Compilation, id: number): FileModel | undefined {
    let per = this.models.get(compilation);
    if (!per) this.models.set(compilation, (per = new Map()));
    const known = per.get(id);
    if (known !== undefined) return known ?? undefined;
    const file = compilation.files.get(id);
    const ast = compilation.asts.get(id);
    let model: FileModel | null = null;
    if (file && ast !== undefined && !compilation.generated.has(id)) {
      const path = compilation.root !== undefined && !isAbsolute(file.name) ? join(compilation.root, file.name) : file.name;
      const earlier = this.byPath.get(path);
      // The same file in another compiler run: one model, when the text is the same.
      if (earlier) model = earlier.file.text === file.text ? earlier : null;
      else {
        model = fileModel(file, ast);
        if (model.statements.length > 0 || model.functions.length > 0) this.byPath.set(path, model);
        else model = null;
      }
    }
    per.set(id, model);
    return model ?? undefined;
  }

  private allModels(): void {
    for (const c of this.index.runs()) for (const id of c.asts.keys()) this.model(c, id);
  }
}

/** The index of the smallest range in `list` holding `r`; -1 when none does. */
function innermost(list: readonly Range[], r: Range): number {
  let best = -1;
  let size = Infinity;
  for (let i = 0; i < list.length; i++) {
    const x = list[i]!;
    if (x.start > r.start) break;
    if (contains(x, r) && x.length < size) {
      best = i;
      size = x.length;
    }
  }
  return best;
}
