/** geth's default tracer: the struct (opcode) logger, in its legacy JSON form. */
import { ChainError } from '../chain/core/errors.js';
import type { StructLoggerOptions } from './config.js';
import type { Frame, FrameResult, StepView, Tracer, TxEndContext } from './driver.js';
import { opcodeByte } from './hooks.js';
import { bytesToWord, hashHex, hexBytes } from './hex.js';
import { OP, opName } from './opcodes.js';

/** One struct-log entry: geth's fields, in geth's order (src/format/stream.ts writes them so). */
export interface StructLogEntry {
  pc: number;
  op: string;
  gas: number;
  gasCost: number;
  depth: number;
  error?: string;
  stack?: string[];
  returnData?: string;
  memory?: string[];
  storage?: Record<string, string>;
  refund?: number;
}

/** A struct-log trace past the node's step cap: -32005, naming the limit and the ways around it. */
export class TraceLimitError extends ChainError {
  constructor(limit: number) {
    super(`trace exceeds the limit of ${limit} struct-log steps (--max-trace-steps): pass {"limit": n} for the first n steps, use a tracer such as callTracer, or raise the limit`, undefined, -32005);
  }
}

/** A struct-log trace holding more text than a response can carry: -32005, naming what to change. */
export class TraceSizeError extends ChainError {
  constructor(mib: number) {
    super(`trace exceeds ${mib} MiB of struct-log data (memory and stack copies at every step): trace without enableMemory, pass {"limit": n} for the first n steps, or use a tracer such as callTracer`, undefined, -32005);
  }
}

/** What one struct-log entry's memory, stack and storage text may add up to over a trace (V8 strings stop near 512 MiB). */
export const MAX_TRACE_BYTES = 256 * 2 ** 20;

interface PendingSload {
  frame: Frame;
  slots: Map<string, string>;
  key: string;
  snapshot: Record<string, string>;
  step: StepView;
}

export class StructLogger implements Tracer {
  private readonly logs: StructLogEntry[] = [];
  /** Storage slots seen so far, per contract (geth keeps them for the whole transaction). */
  private readonly storage = new Map<string, Map<string, string>>();
  private pendingSload: PendingSload | undefined;
  /** The previous step's stack and its text, for words that did not change. */
  private lastWords: readonly bigint[] = [];
  private lastHex: string[] = [];
  private lastEntryStep: StepView | undefined;
  private gasUsed = 0n;
  private top: FrameResult | undefined;
  /** About how many bytes of text the recorded memory, stack and storage copies take. */
  private bytes = 0;

  /** `maxSteps`: the node's cap on recorded steps (--max-trace-steps), which bounds a trace's memory. */
  constructor(
    private readonly opts: StructLoggerOptions,
    private readonly maxSteps = Number.POSITIVE_INFINITY,
    private readonly maxBytes = MAX_TRACE_BYTES,
  ) {}

  opcode(step: StepView, cost: bigint, frame: Frame): void {
    const pending = this.pendingSload;
    if (pending !== undefined) {
      // The loaded value is on top of the stack at the frame's next opcode.
      this.pendingSload = undefined;
      const stack = step.stack;
      if (stack.length > 0) this.fillSload(pending, hashHex(stack[stack.length - 1]));
    }
    const opts = this.opts;
    // geth's `limit`: the number of steps recorded (0 = all).
    if (opts.limit !== 0 && this.logs.length >= opts.limit) return;
    if (this.logs.length >= this.maxSteps) throw new TraceLimitError(this.maxSteps);

    const code = step.opcode.code;
    const entry: StructLogEntry = { pc: step.pc, op: opName(code === OP.INVALID ? opcodeByte(step, frame) : code), gas: Number(step.gasLeft), gasCost: Number(cost), depth: frame.depth };
    const stack = step.stack;
    if (!opts.disableStack) {
      // Most steps change only the top of the stack: words equal to the previous step's at the
      // same position reuse its text.
      const out = new Array<string>(stack.length);
      const lastWords = this.lastWords;
      const lastHex = this.lastHex;
      for (let i = 0; i < stack.length; i++) {
        const w = stack[i];
        out[i] = i < lastWords.length && lastWords[i] === w ? lastHex[i] : '0x' + w.toString(16);
      }
      this.lastWords = stack;
      this.lastHex = out;
      entry.stack = out;
    }
    if (opts.enableReturnData && frame.returnData.length > 0) entry.returnData = hexBytes(frame.returnData);
    // A word of stack or memory is 66 characters of JSON text (and a string header).
    this.bytes += 80 * ((opts.disableStack ? 0 : stack.length) + (opts.enableMemory ? Number(step.memoryWordCount ?? BigInt(step.memory.length >> 5)) : 0));
    if (this.bytes > this.maxBytes) throw new TraceSizeError(Math.round(this.maxBytes / 2 ** 20));
    if (opts.enableMemory) {
      const mem = step.memory;
      if (mem.length > 0) {
        const words = new Array<string>(mem.length >> 5);
        const buf = Buffer.from(mem.buffer, mem.byteOffset, mem.length);
        for (let i = 0, w = 0; i + 32 <= mem.length; i += 32, w++) words[w] = '0x' + buf.toString('hex', i, i + 32);
        entry.memory = words;
      }
    }
    if (!opts.disableStorage && (code === OP.SLOAD || code === OP.SSTORE)) {
      const n = stack.length;
      const address = frame.address ?? step.address.toString();
      let slots = this.storage.get(address);
      if (slots === undefined) {
        slots = new Map();
        this.storage.set(address, slots);
      }
      if (code === OP.SLOAD && n >= 1) {
        const key = hashHex(stack[n - 1]);
        slots.set(key, slots.get(key) ?? '');
        const snapshot = snapshotOf(slots);
        entry.storage = snapshot;
        this.pendingSload = { frame, slots, key, snapshot, step };
      } else if (code === OP.SSTORE && n >= 2) {
        slots.set(hashHex(stack[n - 1]), hashHex(stack[n - 2]));
        entry.storage = snapshotOf(slots);
      }
    }
    if (entry.storage !== undefined) this.bytes += 140 * this.storage.get(frame.address ?? step.address.toString())!.size;
    if (step.gasRefund !== 0n) entry.refund = Number(step.gasRefund);
    this.logs.push(entry);
    this.lastEntryStep = step;
  }

  private fillSload(p: PendingSload, value: string): void {
    p.slots.set(p.key, value);
    p.snapshot[p.key] = value;
  }

  async fault(frame: Frame, error: string): Promise<void> {
    const pending = this.pendingSload;
    if (pending !== undefined && pending.frame === frame) {
      this.pendingSload = undefined;
      const raw = await pending.step.stateManager.getStorage(pending.step.address, hexToBytes32(pending.key));
      this.fillSload(pending, hashHex(bytesToWord(raw)));
    }
    if (frame.lastStep === undefined || this.lastEntryStep !== frame.lastStep) return;
    // Rebuild the entry so that `error` sits where geth puts it.
    const last = this.logs[this.logs.length - 1];
    const { pc, op, gas, gasCost, depth, ...rest } = last;
    this.logs[this.logs.length - 1] = { pc, op, gas, gasCost, depth, error, ...rest };
  }

  exit(frame: Frame, result: FrameResult): void {
    if (frame.depth === 1) this.top = result;
  }

  txEnd(ctx: TxEndContext): void {
    this.gasUsed = ctx.gasUsed;
    this.top = ctx.top;
  }

  result(): unknown {
    const top = this.top;
    const failed = top?.error !== undefined;
    const returnValue = failed && top?.error !== 'execution reverted' ? '0x' : hexBytes(top?.output ?? new Uint8Array(0));
    return { gas: Number(this.gasUsed), failed, returnValue, structLogs: this.logs };
  }
}

function snapshotOf(slots: Map<string, string>): Record<string, string> {
  const keys = Array.from(slots.keys()).sort();
  const out: Record<string, string> = {};
  for (const k of keys) out[k] = slots.get(k)!;
  return out;
}

function hexToBytes32(hex: string): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = parseInt(hex.slice(2 + i * 2, 4 + i * 2), 16);
  return out;
}
