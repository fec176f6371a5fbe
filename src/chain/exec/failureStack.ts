/**
 * The Solidity stack of a failed execution. An execution runs without any step hook; only when it
 * failed, and source maps are loaded, is it run again with one (`captureStack`), which follows
 * the program counter of every frame: where the failing frame stopped, and where each frame
 * that passed the failure on (bubbling the same revert data) made the call.
 */
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import type { CodeSource, SourceFrame, SourceLocator, SourceStack } from '../core/sources.js';

interface Emitter {
  on(event: string, fn: (...args: any[]) => void): unknown;
  removeListener(event: string, fn: (...args: any[]) => void): unknown;
}

const OP_EXTCODESIZE = 0x3b;
const OP_JUMP = 0x56;

interface Live {
  msg: Message | undefined;
  create: boolean;
  source: CodeSource | null | undefined;
  pc: number;
  /** The last pc that mapped into the user's source (compiler helpers such as panic have none). */
  userPc: number;
  /**
   * Where the optimizer's shared code was entered from: a plain jump from one function into code
   * solc attributes to another (two `require`s sharing one revert tail). -1 when not in such code.
   */
  sharedFrom: number;
  /** The opcode at `pc`. */
  op: number;
  /** The pc of the call this frame is making (its last step before a sub-frame began). */
  callPc: number;
  /** The sub-call that failed last, and with which data. */
  failed: { stack: SourceStack; data: Uint8Array; callPc: number } | undefined;
  /** The address of the last EXTCODESIZE, while its result is on the stack. */
  sized: string | undefined;
  noCode: string | undefined;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function frameOf(f: Live, pc: number): SourceFrame | undefined {
  if (!f.source) return undefined;
  let at = f.source.inSource(pc) ? pc : f.userPc >= 0 ? f.userPc : pc;
  if (f.sharedFrom >= 0 && f.source.scope(f.sharedFrom) !== f.source.scope(at)) at = f.sharedFrom;
  const address = f.msg?.to?.toString() ?? undefined;
  return { contract: f.source.name, address, pc: at, location: f.source.locate(at) };
}

/**
 * Follows the frames of one execution, told of each frame's entry, opcodes and exit (by EVM
 * events in `captureStack`, by the trace driver's hooks in the sourceTracer), and builds the
 * stack of each failure.
 */
export class StackRecorder {
  readonly live: Live[] = [];
  /** The outermost frame's failure, once it exited. */
  outcome: SourceStack | undefined;

  constructor(private readonly locator: SourceLocator) {}

  enter(msg: Message | undefined, create: boolean): void {
    const parent = this.live[this.live.length - 1];
    if (parent) {
      parent.callPc = parent.pc;
      parent.failed = undefined;
    }
    this.live.push({ msg, create, source: undefined, pc: 0, userPc: -1, sharedFrom: -1, op: 0, callPc: -1, failed: undefined, sized: undefined, noCode: undefined });
  }

  /** The source of the running frame's code (looked up on its first opcode). */
  sourceOf(f: Live): CodeSource | undefined {
    if (f.source === undefined) {
      const code = f.msg?.code;
      f.source = code instanceof Uint8Array ? (this.locator.code(code, f.create) ?? null) : null;
    }
    return f.source ?? undefined;
  }

  step(pc: number, op: number, top: bigint | undefined): void {
    const f = this.live[this.live.length - 1];
    if (!f) return;
    const src = this.sourceOf(f);
    if (f.sized !== undefined) {
      if (top === 0n) f.noCode = f.sized;
      f.sized = undefined;
    }
    if (src?.inSource(pc)) {
      const prev = f.userPc;
      if (f.op === OP_JUMP && src.jump(f.pc) !== '-') f.sharedFrom = -1;
      else if (f.op === OP_JUMP && prev >= 0 && f.sharedFrom < 0 && src.scope(prev) !== src.scope(pc)) f.sharedFrom = prev;
      f.userPc = pc;
    }
    f.pc = pc;
    f.op = op;
    if (op === OP_EXTCODESIZE) f.sized = '0x' + ((top ?? 0n) & ((1n << 160n) - 1n)).toString(16).padStart(40, '0');
  }

  /** The running frame's location at `pc` (its last opcode when not given). */
  site(pc?: number): SourceFrame | undefined {
    const f = this.live[this.live.length - 1];
    return f ? frameOf(f, pc ?? f.pc) : undefined;
  }

  /** The running frame's call site of its last sub-call. */
  callSite(): SourceFrame | undefined {
    const f = this.live[this.live.length - 1];
    return f && f.callPc >= 0 ? frameOf(f, f.callPc) : undefined;
  }

  /** Where each running frame made its last sub-call, innermost first (the callers of a frame that just exited). */
  callSites(): SourceFrame[] {
    const out: SourceFrame[] = [];
    for (let i = this.live.length - 1; i >= 0; i--) {
      const f = this.live[i]!;
      const site = f.callPc >= 0 ? frameOf(f, f.callPc) : undefined;
      if (site) out.push(site);
    }
    return out;
  }

  /** The running frame exits; `error` is the EVM's (`revert`, `out of gas`, …). Returns its failure's stack. */
  exit(error: string | undefined, data: Uint8Array, called?: Uint8Array): SourceStack | undefined {
    const f = this.live.pop();
    const parent = this.live[this.live.length - 1];
    if (!f) return undefined;
    if (error === undefined) {
      // A call into an address without code: Solidity then reverts with no data.
      const code = called ?? f.msg?.code;
      if (parent && code instanceof Uint8Array && code.length === 0 && !f.create) parent.noCode = f.msg?.to?.toString();
      return undefined;
    }
    let stack: SourceStack;
    const inner = f.failed;
    if (inner && error === 'revert' && sameBytes(inner.data, data)) {
      // The frame passed its sub-call's failure on: that stack, plus where this frame called.
      const site = frameOf(f, inner.callPc);
      stack = { ...inner.stack, frames: site ? [...inner.stack.frames, site] : inner.stack.frames };
    } else {
      const own = frameOf(f, f.pc);
      const noCode = error === 'revert' && data.length === 0 ? f.noCode : undefined;
      stack = { frames: own ? [own] : [], error, data, ...(noCode ? { noCode } : {}) };
    }
    if (parent) parent.failed = { stack, data, callPc: parent.callPc };
    else this.outcome = stack;
    return stack;
  }
}

/**
 * Run `run` (the failed execution, again) and return the stack of its outermost frame's failure;
 * undefined when it did not fail or no failing frame has source. Frames are followed by their
 * messages; the step hook (a synchronous listener, the engine's cheaper kind) is attached only once
 * a frame's code has source, so a failure in code no artifact matches costs one plain execution.
 */
export async function captureStack(
  events: Emitter,
  locator: SourceLocator,
  codeOf: (address: Message['codeAddress']) => Promise<Uint8Array>,
  run: () => Promise<unknown>,
): Promise<SourceStack | undefined> {
  const rec = new StackRecorder(locator);
  let stepping = false;
  const onStep = (step: InterpreterStep) => rec.step(step.pc, step.opcode.code, step.stack[step.stack.length - 1]);
  const onBefore = (msg: Message, resolve: () => void) => {
    const create = msg.to === undefined;
    rec.enter(msg, create);
    if (stepping) return resolve();
    // The code is loaded after this event: read it here to know whether the frame has source.
    (create ? Promise.resolve(msg.data) : codeOf(msg.codeAddress))
      .then((code) => {
        const f = rec.live[rec.live.length - 1];
        if (f && code.length > 0 && locator.code(code, create)) {
          stepping = true;
          events.on('step', onStep);
        }
      })
      .catch(() => undefined)
      .finally(resolve);
  };
  const onAfter = (res: EVMResult, resolve: () => void) => {
    rec.exit(res.execResult.exceptionError?.error, res.execResult.returnValue);
    resolve();
  };
  events.on('beforeMessage', onBefore);
  events.on('afterMessage', onAfter);
  try {
    await run();
  } finally {
    events.removeListener('beforeMessage', onBefore);
    events.removeListener('step', onStep);
    events.removeListener('afterMessage', onAfter);
  }
  const outcome = rec.outcome;
  return outcome !== undefined && outcome.frames.length > 0 ? outcome : undefined;
}
