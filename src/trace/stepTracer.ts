/**
 * stepTracer (node-rpc's own): what the explorer's step debugger reads. Every executed opcode is
 * numbered; the result holds
 *  - `frames`: the call frames (type, addresses, contract name, first and last step, error and
 *    where the failure began);
 *  - `lines`: each step where the Solidity source position (frame, file, line or call depth)
 *    changed, over the whole transaction, with the Solidity call depth (external calls and
 *    internal function calls, from solc's jump markers);
 *  - `locations` and `sources`: the source positions those entries point at and the text of the
 *    files they are in;
 *  - `storage`: every storage read and write (slot, value, and for a write the value before);
 *  - `window`: for the steps `from … from+count` only, each opcode with its gas, the stack as a
 *    change from the frame's previous step and the memory words that changed.
 * A long transaction is read a window at a time: positions, lines and storage cover the whole
 * transaction, the per-opcode detail only the window asked for (at most MAX_COUNT steps), and
 * `lines` stops at MAX_LINES entries (`truncated`).
 */
import { setLengthLeft, bigIntToBytes } from '@ethereumjs/util';
import { revertMessage } from '../chain/exec/revertData.js';
import type { CodeSource, SourceLocator } from '../chain/core/sources.js';
import type { Frame, FrameResult, StepView, Tracer } from './driver.js';
import { hexBytes } from './hex.js';
import { OP, opName } from './opcodes.js';

export interface StepTracerOptions {
  /** First step (0-based) whose opcode detail is returned. */
  from: number;
  /** How many steps of detail, at most MAX_COUNT. */
  count: number;
}

export const DEFAULT_COUNT = 5000;
export const MAX_COUNT = 50_000;
export const MAX_LINES = 200_000;

/** geth-style `tracerConfig` of the stepTracer: `{from?, count?}`; throws a message naming the bad option. */
export function stepTracerOptions(raw: unknown): StepTracerOptions {
  const out: StepTracerOptions = { from: 0, count: DEFAULT_COUNT };
  if (raw === undefined || raw === null) return out;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new Error('stepTracer: tracerConfig must be an object');
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    if (key !== 'from' && key !== 'count') throw new Error(`stepTracer: unknown option "${key}"`);
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new Error(`stepTracer: option "${key}" must be a non-negative integer`);
    if (key === 'count' && value > MAX_COUNT) throw new Error(`stepTracer: option "count" must be at most ${MAX_COUNT}`);
    out[key] = value;
  }
  return out;
}

const NO_SOURCES: SourceLocator = { mapped: 0, code: () => undefined, snippet: () => [], describeError: () => undefined };

/** Opcodes after which memory may hold new values (beyond growing with zeros). */
const WRITES_MEMORY = new Set([0x52, 0x53, 0x37, 0x39, 0x3c, 0x3e, 0x5e, 0xf1, 0xf2, 0xf4, 0xfa]);

/** A source position in the stepTracer's answer (the explorer's debugger reads the same type). */
export interface Location {
  file: string;
  line: number;
  column: number;
  function: string | null;
  contract: string | null;
}

/** A frame in the stepTracer's answer (the explorer's debugger reads the same type). */
export interface FrameOut {
  type: string;
  from: string;
  to: string | null;
  /** The account whose storage the frame reads and writes. */
  address: string | null;
  contract: string | null;
  depth: number;
  parent: number;
  /** The parent's step that made the call (-1 for the transaction's own frame). */
  callStep: number;
  /** First and last step of the frame's own code (-1 when it ran none). */
  start: number;
  last: number;
  /** The first step after the frame returned. */
  end: number;
  input: string;
  output: string;
  error: string | null;
  /** For a failed frame: the step where its failure began (in it, or in a sub-call whose revert it passed on). */
  failStep: number | null;
  /** The failure as eth_call reports it (`execution reverted: not enough`). */
  message: string | null;
}

/** Per running frame. */
interface Open {
  index: number;
  msg: Frame['msg'];
  create: boolean;
  /** Looked up at the frame's first step (the engine loads the code after announcing the frame). */
  source: CodeSource | undefined;
  /** Solidity call depth of the frame's entry (its callers' depths plus one). */
  base: number;
  /** Internal function calls entered and not yet left. */
  inner: number;
  lastPc: number;
  lastOp: number;
  /** The stack and memory of the frame's previous step inside the window. */
  stack: bigint[] | undefined;
  memory: Uint8Array | undefined;
  memWords: number;
  sload: string | undefined;
  /** The last failed sub-call (its index and output) since the frame's last step. */
  failedChild: number;
}

const JUMP = 0x56;
const word = (v: bigint): string => '0x' + v.toString(16);

export class StepTracer implements Tracer {
  readonly asyncSteps = true;
  private readonly frames: FrameOut[] = [];
  private readonly outputs: Uint8Array[] = [];
  private readonly open: Open[] = [];
  private readonly locations: Location[] = [];
  private readonly locationIds = new Map<string, number>();
  private readonly pcLocations = new Map<CodeSource, Map<number, number>>();
  private readonly lines: number[][] = [];
  private readonly storage: Array<Array<number | string>> = [];
  private readonly window: Array<Record<string, unknown>> = [];
  private truncated = false;
  private steps = 0;
  private lastLine: { frame: number; file: string; line: number; depth: number } | undefined;

  constructor(
    private readonly options: StepTracerOptions,
    private readonly locator: SourceLocator = NO_SOURCES,
  ) {}

  enter(frame: Frame): void {
    const parent = this.open[this.open.length - 1];
    const index = this.frames.length;
    this.frames.push({
      type: frame.type,
      from: frame.from,
      to: frame.to ?? null,
      address: frame.address ?? null,
      contract: null,
      depth: frame.depth - 1,
      parent: parent?.index ?? -1,
      callStep: parent ? this.steps - 1 : -1,
      start: -1,
      last: -1,
      end: -1,
      input: hexBytes(frame.input),
      output: '0x',
      error: null,
      failStep: null,
      message: null,
    });
    this.outputs.push(EMPTY);
    if (parent) parent.failedChild = -1;
    const base = parent ? parent.base + parent.inner + 1 : 0;
    this.open.push({ index, msg: frame.msg, create: frame.type === 'CREATE' || frame.type === 'CREATE2', source: undefined, base, inner: 0, lastPc: -1, lastOp: -1, stack: undefined, memory: undefined, memWords: 0, sload: undefined, failedChild: -1 });
  }

  private locationOf(source: CodeSource, pc: number): number {
    let byPc = this.pcLocations.get(source);
    if (!byPc) {
      byPc = new Map();
      this.pcLocations.set(source, byPc);
    }
    let id = byPc.get(pc);
    if (id !== undefined) return id;
    const l = source.locate(pc);
    if (!l) id = -1;
    else {
      const key = `${l.file}\n${l.line}\n${l.column}\n${l.function ?? ''}\n${l.contract ?? ''}`;
      id = this.locationIds.get(key);
      if (id === undefined) {
        id = this.locations.length;
        this.locations.push({ file: l.file, line: l.line, column: l.column, function: l.function ?? null, contract: l.contract ?? null });
        this.locationIds.set(key, id);
      }
    }
    byPc.set(pc, id);
    return id;
  }

  opcode(step: StepView, cost: bigint): Promise<void> | void {
    const open = this.open[this.open.length - 1];
    if (!open) return;
    const n = this.steps++;
    const frame = this.frames[open.index]!;
    if (frame.start < 0) {
      frame.start = n;
      const code = open.msg?.code;
      open.source = code instanceof Uint8Array && code.length > 0 ? this.locator.code(code, open.create) : undefined;
      frame.contract = open.source?.name ?? null;
    }
    frame.last = n;
    if (frame.address === null) frame.address = step.address.toString();
    const stack = step.stack;
    const code = step.opcode.code;
    // solc marks the jump into an internal function `i` and the jump out of it `o`.
    if (open.source && open.lastOp === JUMP) {
      const kind = open.source.jump(open.lastPc);
      if (kind === 'i') open.inner++;
      else if (kind === 'o' && open.inner > 0) open.inner--;
    }
    if (open.sload !== undefined) {
      if (stack.length > 0) this.storage.push([n - 1, open.index, open.sload, word(stack[stack.length - 1]!), 'r']);
      open.sload = undefined;
    }
    const loc = open.source ? this.locationOf(open.source, step.pc) : -1;
    if (loc >= 0 && !this.truncated) this.line(n, open, loc);
    if (n >= this.options.from && n < this.options.from + this.options.count) this.detail(n, step, cost, open, loc);
    open.lastPc = step.pc;
    open.lastOp = code;
    if (code === OP.SLOAD && stack.length > 0) open.sload = word(stack[stack.length - 1]!);
    else if (code === OP.SSTORE && stack.length > 1) {
      const slot = stack[stack.length - 1]!;
      const value = stack[stack.length - 2]!;
      const entry: Array<number | string> = [n, open.index, word(slot), word(value), 'w'];
      this.storage.push(entry);
      // The value before the write, read before the opcode runs.
      return step.stateManager.getStorage(step.address, setLengthLeft(bigIntToBytes(slot), 32)).then((raw) => {
        let v = 0n;
        for (const b of raw) v = (v << 8n) | BigInt(b);
        entry.push(word(v));
      });
    }
  }

  private line(n: number, open: Open, loc: number): void {
    const l = this.locations[loc]!;
    const depth = open.base + open.inner;
    const last = this.lastLine;
    if (last && last.frame === open.index && last.file === l.file && last.line === l.line && last.depth === depth) return;
    if (this.lines.length >= MAX_LINES) {
      this.truncated = true;
      return;
    }
    this.lastLine = { frame: open.index, file: l.file, line: l.line, depth };
    this.lines.push([n, open.index, loc, depth]);
  }

  private detail(n: number, step: StepView, cost: bigint, open: Open, loc: number): void {
    const stack = step.stack;
    const entry: Record<string, unknown> = { n, f: open.index, pc: step.pc, op: opName(step.opcode.code), g: Number(step.gasLeft), c: Number(cost) };
    if (loc >= 0) entry.l = loc;
    // The stack: how many words of the frame's previous stack stay, and the words above them.
    const prev = open.stack;
    let keep = 0;
    if (prev) while (keep < prev.length && keep < stack.length && prev[keep] === stack[keep]) keep++;
    entry.s = [prev ? keep : -1, ...stack.slice(keep).map(word)];
    open.stack = stack;
    // Memory: in full the first time, then only the 32-byte words that changed.
    const words = Number(step.memoryWordCount ?? BigInt(step.memory.length >> 5));
    if (open.memory === undefined || WRITES_MEMORY.has(open.lastOp) || words !== open.memWords) {
      const mem = words === 0 ? EMPTY : step.memory;
      const old = open.memory;
      const changed: Array<[number, string]> = [];
      for (let w = 0; w < words; w++) {
        const at = w * 32;
        let same = true;
        let zero = true;
        for (let i = at; i < at + 32; i++) {
          const b = mem[i] ?? 0;
          if (b !== 0) zero = false;
          if (old === undefined || b !== (old[i] ?? 0)) same = false;
        }
        if (old === undefined ? !zero : !same) changed.push([w, Buffer.from(mem.subarray(at, at + 32)).toString('hex').padEnd(64, '0')]);
      }
      if (old === undefined) entry.mf = 1;
      if (changed.length > 0) entry.m = changed;
      open.memory = mem.slice(0, words * 32);
      open.memWords = words;
    }
    entry.ms = words;
    this.window.push(entry);
  }

  exit(_frame: Frame, result: FrameResult): void {
    const open = this.open.pop();
    if (!open) return;
    const f = this.frames[open.index]!;
    if (f.address === null && _frame.address !== undefined) f.address = _frame.address;
    if (f.to === null && _frame.to !== undefined) f.to = _frame.to;
    f.end = this.steps;
    f.output = hexBytes(result.output);
    this.outputs[open.index] = result.output;
    if (result.error !== undefined) {
      f.error = result.error;
      f.message = result.error === 'execution reverted' ? revertMessage(result.output) : result.error;
      const child = open.failedChild >= 0 ? this.frames[open.failedChild] : undefined;
      // A revert passing on its sub-call's revert data began where the sub-call failed.
      const passedOn = child !== undefined && result.error === 'execution reverted' && sameBytes(this.outputs[open.failedChild]!, result.output);
      f.failStep = passedOn ? child.failStep : f.last >= 0 ? f.last : f.callStep;
    }
    const parent = this.open[this.open.length - 1];
    if (parent) parent.failedChild = result.error !== undefined ? open.index : -1;
  }

  result(): unknown {
    const files = new Map<string, string>();
    for (const l of this.locations) {
      if (files.has(l.file)) continue;
      files.set(l.file, this.locator.snippet(l.file, 1, Number.MAX_SAFE_INTEGER).map((s) => s.text).join('\n'));
    }
    const top = this.frames[0];
    return {
      steps: this.steps,
      from: this.options.from,
      count: this.window.length,
      truncated: this.truncated,
      failed: top?.error !== null && top?.error !== undefined,
      revert: top && top.error !== null ? { step: top.failStep, message: top.message } : null,
      frames: this.frames,
      locations: this.locations,
      sources: Object.fromEntries(files),
      lines: this.lines,
      storage: this.storage,
      window: this.window,
    };
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const EMPTY = new Uint8Array(0);
