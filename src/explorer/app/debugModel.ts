/**
 * The step debugger's model, without the page: a stepTracer result (see src/trace/stepTracer.ts)
 * read as positions in the execution. Positions, lines, frames and storage cover the whole
 * transaction; the stack and memory come from the window of opcode detail, which the page
 * fetches again around a step outside it.
 */
import type { FrameOut, Location } from '../../trace/stepTracer.js';

export type { Location };
/** A frame of the trace, as the tracer writes it. */
export type TraceFrame = FrameOut;

export interface WindowStep {
  n: number;
  f: number;
  pc: number;
  op: string;
  g: number;
  c: number;
  l?: number;
  /** [words kept from the frame's previous step (-1: none, the whole stack follows), …words above them]. */
  s: [number, ...string[]];
  /** Changed 32-byte words [index, hex]; with `mf` the whole (non-zero) memory. */
  m?: Array<[number, string]>;
  mf?: number;
  ms: number;
}

export interface StepTrace {
  steps: number;
  from: number;
  count: number;
  truncated: boolean;
  failed: boolean;
  revert: { step: number; message: string } | null;
  frames: TraceFrame[];
  locations: Location[];
  sources: Record<string, string>;
  /** [step, frame, location, Solidity call depth]: each step where the source line changed. */
  lines: Array<[number, number, number, number]>;
  /** [step, frame, slot, value, 'r' | 'w', value before a write]. */
  storage: Array<[number, number, string, string, string, string?]>;
  window: WindowStep[];
}

export interface SolidityFrame {
  name: string;
  file: string | null;
  line: number | null;
  frame: number;
}

export interface Slot {
  slot: string;
  value: string;
  /** The value before the transaction touched it. */
  original: string;
  changed: boolean;
}

/** The last index `i` of sorted `list` with `key(list[i]) <= n`, or -1. */
function lastAtOrBefore<T>(list: T[], n: number, key: (t: T) => number): number {
  let lo = 0;
  let hi = list.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (key(list[mid]!) <= n) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

export class DebugModel {
  /** Per storage event: the step at which a failing frame rolled it back (Infinity: never). */
  private readonly undoneAt: number[];

  constructor(public trace: StepTrace) {
    this.undoneAt = trace.storage.map(([, f]) => {
      let at = Infinity;
      for (let i = f; i >= 0; i = trace.frames[i]!.parent) if (trace.frames[i]!.error !== null) at = Math.min(at, trace.frames[i]!.end);
      return at;
    });
  }

  get steps(): number {
    return this.trace.steps;
  }

  inWindow(n: number): boolean {
    return n >= this.trace.from && n < this.trace.from + this.trace.count;
  }

  /** Replace the window (a fresh trace of the same execution, with other `from`). */
  setWindow(t: StepTrace): void {
    this.trace = { ...this.trace, from: t.from, count: t.count, window: t.window };
  }

  /** The frame running step `n`: the deepest frame whose steps span it. */
  frameAt(n: number): number {
    const w = this.inWindow(n) ? this.trace.window[n - this.trace.from] : undefined;
    if (w) return w.f;
    let best = 0;
    this.trace.frames.forEach((f, i) => {
      if (f.start >= 0 && f.start <= n && n < f.end && f.depth >= this.trace.frames[best]!.depth) best = i;
    });
    return best;
  }

  /** The line entry in effect at step `n` (the last one at or before it), or -1. */
  lineIndex(n: number): number {
    return lastAtOrBefore(this.trace.lines, n, (e) => e[0]);
  }

  /** The source position of step `n`: its own, or the frame's last mapped line before it. */
  locationAt(n: number): Location | undefined {
    const w = this.inWindow(n) ? this.trace.window[n - this.trace.from] : undefined;
    if (w?.l !== undefined) return this.trace.locations[w.l];
    const f = this.frameAt(n);
    for (let i = this.lineIndex(n); i >= 0; i--) {
      const e = this.trace.lines[i]!;
      if (e[0] < this.trace.frames[f]!.start) break;
      if (e[1] === f) return this.trace.locations[e[2]];
    }
    return undefined;
  }

  private entryKey(i: number): string {
    const e = this.trace.lines[i]!;
    const l = this.trace.locations[e[2]]!;
    return `${e[1]}:${l.file}:${l.line}`;
  }

  /** The next (or previous) line entry after the current one that `stop` accepts; its step, or undefined. */
  private seek(n: number, forward: boolean, stop: (i: number, from: number) => boolean): number | undefined {
    const lines = this.trace.lines;
    const cur = this.lineIndex(n);
    if (forward) {
      for (let i = cur + 1; i < lines.length; i++) if (stop(i, cur)) return lines[i]![0];
      return undefined;
    }
    // Backwards: from the line before the one in effect (or this one, when in its middle).
    const start = cur >= 0 && lines[cur]![0] < n ? cur : cur - 1;
    for (let i = start; i >= 0; i--) if (stop(i, cur)) return lines[i]![0];
    return undefined;
  }

  /** Whether step `n` runs code without a source map (stepped by instruction). */
  unmapped(n: number): boolean {
    return this.trace.frames[this.frameAt(n)]!.contract === null;
  }

  stepInto(n: number): number {
    if (this.unmapped(n)) return Math.min(n + 1, this.steps - 1);
    return this.seek(n, true, () => true) ?? this.steps - 1;
  }

  stepBack(n: number): number {
    if (this.unmapped(n)) return Math.max(n - 1, 0);
    return this.seek(n, false, () => true) ?? 0;
  }

  /** Without source: the next instruction of this frame (past a call it makes), or its caller's. */
  private opOver(n: number): number {
    const f = this.frameAt(n);
    const child = this.trace.frames.find((c) => c.parent === f && c.callStep === n && c.start >= 0);
    return Math.min(child ? child.end : n + 1, this.steps - 1);
  }

  /** Without source: the first step after this frame returned. */
  private opOut(n: number): number {
    return Math.min(this.trace.frames[this.frameAt(n)]!.end, this.steps - 1);
  }

  /** The next line at the same Solidity call depth or shallower (or a breakpoint on the way). */
  stepOver(n: number, breakpoints: Set<string>): number {
    if (this.unmapped(n)) return this.opOver(n);
    const lines = this.trace.lines;
    return (
      this.seek(n, true, (i, cur) => {
        if (this.isBreakpoint(i, breakpoints)) return true;
        if (cur < 0) return true;
        return lines[i]![3] <= lines[cur]![3] && this.entryKey(i) !== this.entryKey(cur);
      }) ?? this.steps - 1
    );
  }

  /** The next line in a caller (a shallower Solidity call depth), or a breakpoint on the way. */
  stepOut(n: number, breakpoints: Set<string>): number {
    if (this.unmapped(n)) return this.opOut(n);
    const lines = this.trace.lines;
    return this.seek(n, true, (i, cur) => this.isBreakpoint(i, breakpoints) || cur < 0 || lines[i]![3] < lines[cur]![3]) ?? this.steps - 1;
  }

  /** The next (or, backwards, previous) line with a breakpoint; the end (or start) when none. */
  toBreakpoint(n: number, breakpoints: Set<string>, forward: boolean): number {
    return this.seek(n, forward, (i) => this.isBreakpoint(i, breakpoints)) ?? (forward ? this.steps - 1 : 0);
  }

  private isBreakpoint(i: number, breakpoints: Set<string>): boolean {
    const l = this.trace.locations[this.trace.lines[i]![2]]!;
    return breakpoints.has(`${l.file}:${l.line}`);
  }

  /** The Solidity call stack at step `n`, innermost first: internal calls and external frames. */
  callStack(n: number): SolidityFrame[] {
    const out: SolidityFrame[] = [];
    const lines = this.trace.lines;
    let f = this.frameAt(n);
    let at = n;
    while (f >= 0) {
      const frame = this.trace.frames[f]!;
      const sites: Array<[number, number, number, number]> = [];
      const last = this.lineIndex(at);
      for (let i = 0; i <= last; i++) {
        const e = lines[i]!;
        if (e[1] !== f || e[0] < frame.start) continue;
        while (sites.length > 0 && sites[sites.length - 1]![3] >= e[3]) sites.pop();
        sites.push(e);
      }
      if (sites.length === 0) out.push({ name: `${frame.contract ?? frame.address ?? frame.to ?? '?'} (no source)`, file: null, line: null, frame: f });
      const name = (e: [number, number, number, number]) => {
        const l = this.trace.locations[e[2]]!;
        return `${l.contract ?? frame.contract ?? '?'}.${l.function ?? '(contract)'}`;
      };
      for (let i = sites.length - 1; i >= 0; i--) {
        // An external function's ABI decoding jumps into its body: one Solidity frame, not two.
        if (i < sites.length - 1 && name(sites[i]!) === name(sites[i + 1]!)) continue;
        const l = this.trace.locations[sites[i]![2]]!;
        out.push({ name: name(sites[i]!), file: l.file, line: l.line, frame: f });
      }
      at = frame.callStep;
      f = frame.parent;
    }
    return out;
  }

  /** The window's step `n`, undefined outside the window. */
  step(n: number): WindowStep | undefined {
    return this.inWindow(n) ? this.trace.window[n - this.trace.from] : undefined;
  }

  /** The frame's steps in the window up to `n`, from its last full snapshot. */
  private replay(n: number): WindowStep[] {
    const w = this.step(n);
    if (!w) return [];
    const out: WindowStep[] = [];
    for (let i = n - this.trace.from; i >= 0; i--) {
      const s = this.trace.window[i]!;
      if (s.f !== w.f) continue;
      out.push(s);
      if (s.s[0] === -1) break;
    }
    return out.reverse();
  }

  /** The EVM stack before step `n` runs, bottom first; undefined outside the window. */
  stack(n: number): string[] | undefined {
    if (!this.step(n)) return undefined;
    let stack: string[] = [];
    for (const s of this.replay(n)) {
      const [keep, ...words] = s.s;
      stack = keep < 0 ? words : [...stack.slice(0, keep), ...words];
    }
    return stack;
  }

  /** Memory before step `n` runs, as 32-byte hex words; undefined outside the window. */
  memory(n: number): string[] | undefined {
    const w = this.step(n);
    if (!w) return undefined;
    let mem: string[] = [];
    for (const s of this.replay(n)) {
      if (s.mf) mem = [];
      for (const [i, word] of s.m ?? []) mem[i] = word;
    }
    const zero = '0'.repeat(64);
    return Array.from({ length: w.ms }, (_, i) => mem[i] ?? zero);
  }

  /** The storage of `address` as the code sees it before step `n`: the slots touched so far. */
  storage(n: number, address: string | null): Slot[] {
    const slots = new Map<string, Slot>();
    const addr = address?.toLowerCase();
    this.trace.storage.forEach((e, i) => {
      const [step, f, slot, value, kind, before] = e;
      if (step >= n || this.trace.frames[f]!.address?.toLowerCase() !== addr) return;
      let s = slots.get(slot);
      if (!s) {
        const original = kind === 'w' ? (before ?? '0x0') : value;
        s = { slot, value: original, original, changed: false };
        slots.set(slot, s);
      }
      if (this.undoneAt[i]! <= n) return;
      s.value = value;
      if (kind === 'w') s.changed = true;
    });
    return [...slots.values()];
  }
}
