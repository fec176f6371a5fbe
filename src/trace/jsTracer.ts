/**
 * geth's JavaScript tracers: a tracer object written in JavaScript (the `tracer` string of
 * debug_trace*) runs on a tracer thread (jsWorker.ts) in a sandbox, with geth's API
 * (jsSandbox.ts). The EVM stays where it runs; each hook the tracer has is handed to its thread
 * through shared memory (jsProtocol.ts) and the EVM waits for it, serving what the tracer reads
 * meanwhile (the stack, memory, the contract, state through `db`). Only the hooks the tracer
 * defines are sent: one without `step` costs nothing per opcode.
 *
 * A hook's answer is waited for briefly on the spot, then without holding the event loop (other
 * requests are served while a slow tracer runs). Past the trace's deadline the thread is ended and
 * the trace answers `execution timeout`; a thread that exhausts its heap bound ends too, and the
 * trace answers that. Finished threads are kept for the next trace.
 */
import { bigIntToBytes, setLengthLeft } from '@ethereumjs/util';
import type { StateManagerInterface } from '@ethereumjs/common';
import { ChainError } from '../chain/core/errors.js';
import type { Frame, FrameResult, StepView, Tracer, TxEndContext, TxStartContext } from './driver.js';
import { C, FRAME_TYPES, LEN, MSG, NODE_TURN, PAYLOAD, R, TRACER_TURN, TURN } from './jsProtocol.js';
import { writeStep } from './jsBatch.js';
import { isExecutionFault, resultContext, ZERO_ADDRESS, type JsTracerTarget } from './jsContext.js';
import { addressBytes, serveRequest } from './jsRequests.js';
import { hand, keep, take, tracerError, waitAsync, waitSync, type Thread } from './jsThreads.js';
import type { WorkerJob } from './jsWorker.js';

export type { JsTracerTarget } from './jsContext.js';

/** Candidate precompile addresses (the EVM says which are active). */
const PRECOMPILE_CANDIDATES = [...Array.from({ length: 0x11 }, (_, i) => i + 1), 0x100];


type Reply = 'done' | 'again' | Promise<void>;

export class JsTracer implements Tracer {
  private thread: Thread | undefined;
  private hasStep = false;
  private hasFrames = false;
  private readonly deadline: number;
  private readonly started = performance.now();
  private sm: StateManagerInterface | undefined;
  /** Hooks still being answered (each next hook waits for them), and the first failure. */
  private chain: Promise<void> | undefined;
  private failure: unknown;
  private step: StepView | undefined;
  private frame: Frame | undefined;
  private readonly frameIds = new WeakMap<Frame, number>();
  private nextFrameId = 1;
  /** A CREATE frame whose enter waits until its address is known. */
  private pendingCreate: Frame | undefined;
  private faulted = new WeakSet<Frame>();
  private result_: unknown = null;
  private resultText = '';
  /** The worker's loop waits for a hook (so it can be stopped and the thread kept). */
  private idleLoop = false;
  /**
   * Steps go in batches when the tracer's source names none of what a step can only read while
   * it runs (memory, the contract, state): one exchange per batch instead of one per opcode. The
   * batch carries the stacks when the source names the stack.
   */
  private readonly batching: boolean;
  private readonly batchStacks: boolean;
  private readonly batchMemory: boolean;
  private readonly batchContract: boolean;
  /** The frame whose contract the current batch has carried last. */
  private batchFrame: Frame | undefined;
  private batched = 0;
  private batchBytes = 0;
  /** A batch is being run: what a step reads only while it runs cannot be answered. */
  private inBatch = false;
  private view: DataView | undefined;

  constructor(
    private readonly source: string,
    private readonly config: string,
    private readonly target: JsTracerTarget,
    timeoutMs: number,
  ) {
    this.deadline = performance.now() + Math.max(0, timeoutMs);
    this.batching = !LIVE_READS.test(source);
    this.batchStacks = /stack/.test(source);
    this.batchMemory = /memory/.test(source);
    this.batchContract = /contract/.test(source);
  }

  /** The EVM waits for each step only when the tracer has step(). */
  get asyncSteps(): boolean {
    return this.hasStep;
  }

  /** Without step, enter and exit the EVM's steps are not listened to at all (frames need them for their types). */
  get ignoresSteps(): boolean {
    return !this.hasStep && !this.hasFrames;
  }

  // ------------------------------------------------------------ hooks

  async txStart(ctx: TxStartContext): Promise<void> {
    this.sm = ctx.stateManager;
    const t = take();
    this.thread = t;
    const precompiles: string[] = [];
    for (const n of PRECOMPILE_CANDIDATES) {
      const a = '0x' + n.toString(16).padStart(40, '0');
      if (this.target.isPrecompile(a)) precompiles.push(a);
    }
    Atomics.store(t.ctl, TURN, TRACER_TURN);
    const job: WorkerJob = { source: this.source, config: this.config, precompiles, timeoutMs: this.deadline - performance.now() + 50 };
    t.worker.postMessage(job);
    await waitAsync(t, this.deadline);
    const kind = t.ctl[MSG];
    if (kind === R.ERROR) throw tracerError(t);
    this.hasStep = t.nums[0] === 1;
    this.hasFrames = t.nums[1] === 1;
    this.idleLoop = true;
  }

  opcode(step: StepView, cost: bigint, frame: Frame): Promise<void> | void {
    if (!this.hasStep) return this.pendingCreate === undefined ? undefined : this.queue(() => this.flushCreate(step.address.toString()));
    if (this.pendingCreate === undefined && this.chain === undefined && this.failure === undefined) return this.batchStep(step, cost, frame);
    return this.queue(() => after(this.flushCreate(step.address.toString()), () => this.stepAlone(step, cost, frame)));
  }

  /** One step in an exchange of its own (the tracer may read memory, the contract and state while it runs). */
  private stepAlone(step: StepView, cost: bigint, frame: Frame): void | Promise<void> {
    {
      this.step = step;
      this.frame = frame;
      const n = this.thread!.nums;
      n[0] = step.opcode.code;
      n[1] = step.pc;
      n[2] = Number(step.gasLeft);
      n[3] = Number(cost);
      n[4] = frame.depth;
      n[5] = Number(step.gasRefund);
      n[6] = step.memoryWordCount !== undefined ? Number(step.memoryWordCount) * 32 : step.memory.length;
      n[7] = step.stack.length;
      n[8] = this.idOf(frame);
      return this.send(C.STEP, 0);
    }
  }

  fault(frame: Frame, error: string): Promise<void> | void {
    // geth reports a fault before the opcode ran to step() (with the error), not to fault(): without step, nothing.
    if (!this.hasStep) return;
    this.faulted.add(frame);
    return this.queue(() => after(this.flush(), () => this.sendFault(error)));
  }

  enter(frame: Frame): void {
    if (frame.depth === 1) {
      this.topGas = frame.msg?.gasLimit ?? frame.gas;
      return;
    }
    if (!this.hasFrames) return;
    const to = frame.to;
    void this.queue(() =>
      after(after(this.flush(), () => this.flushCreate(frame.from)), () => {
        if ((frame.type === 'CREATE' || frame.type === 'CREATE2') && to === undefined) {
          this.pendingCreate = frame;
          return;
        }
        return this.sendEnter(frame, to!);
      }),
    );
  }

  exit(frame: Frame, result: FrameResult): void {
    const faults = result.error !== undefined && isExecutionFault(result.error) && !this.faulted.has(frame) && frame.type !== 'SELFDESTRUCT';
    const to = frame.to;
    if (faults) void this.queue(() => after(this.flush(), () => this.sendFault(result.error!)));
    if (frame.depth === 1 || !this.hasFrames) return;
    void this.queue(() => after(this.flush(), () => {
      if (this.pendingCreate === frame) {
        this.pendingCreate = undefined;
        return after(this.sendEnter(frame, to ?? ZERO_ADDRESS), () => this.sendExit(result));
      }
      return this.sendExit(result);
    }));
  }

  async txEnd(ctx: TxEndContext): Promise<void> {
    await this.chain;
    if (this.failure === undefined) await this.flush();
    await this.chain;
    if (this.failure !== undefined) throw this.failure;
    const c = resultContext(this.target, ctx, this.topGas, performance.now() - this.started);
    this.idleLoop = false;
    const r = this.send(C.RESULT, this.putString(JSON.stringify(c)));
    if (r !== undefined) await r;
    this.result_ = JSON.parse(this.resultText);
  }

  result(): unknown {
    return this.result_;
  }

  /** The trace is over (or abandoned): keep the thread if it is ready for another. */
  close(): void {
    const t = this.thread;
    if (t === undefined) return;
    this.thread = undefined;
    if (t.ended === undefined && Atomics.load(t.ctl, TURN) === NODE_TURN && (this.idleLoop || t.ctl[MSG] === R.END || t.ctl[MSG] === R.ERROR)) {
      if (this.idleLoop) hand(t, C.STOP, 0);
      keep(t);
    } else void t.worker.terminate();
  }

  // ------------------------------------------------------------ batched steps

  private batchStep(step: StepView, cost: bigint, frame: Frame): void | Promise<void> {
    const t = this.thread!;
    const stackLen = step.stack.length;
    const memLen = step.memoryWordCount !== undefined ? Number(step.memoryWordCount) * 32 : step.memory.length;
    const msg = frame.msg;
    const input = msg?.data ?? frame.input;
    const withContract = this.batchContract && (this.batchFrame !== frame || this.batched === 0);
    const size = 80 + (this.batchStacks ? stackLen * 32 : 0) + (this.batchMemory ? memLen : 0) + (withContract ? 80 + input.length : 0);
    // A step too large for a batch of its own goes alone (what it reads is asked for while it runs).
    if (size > PAYLOAD / 2) return this.queue(() => after(this.flush(), () => this.stepAlone(step, cost, frame)));
    let flushed: void | Promise<void> = undefined;
    if (this.batchBytes + size > PAYLOAD) flushed = this.flush();
    const write = () => {
      const withContractNow = this.batchContract && (this.batchFrame !== frame || this.batched === 0);
      if (withContractNow) this.batchFrame = frame;
      const at = writeStep(t.bytes, (this.view ??= new DataView(t.bytes.buffer, t.bytes.byteOffset, t.bytes.byteLength)), this.batchBytes, {
        step,
        cost,
        frame,
        frameId: this.idOf(frame),
        memLen,
        stack: this.batchStacks,
        memory: this.batchMemory,
        contract: withContractNow,
      });
      this.batchBytes = at;
      // A tracer that reads state in step() gets each step on its own, with the EVM waiting on it.
      if (++this.batched >= (this.batching ? BATCH_STEPS : 1)) return this.flush();
    };
    return flushed === undefined ? write() : this.queue(() => after(flushed, write));
  }

  /** Send the batched steps (before any other hook, and when the batch is full). */
  private flush(): void | Promise<void> {
    if (this.batched === 0) return;
    const t = this.thread!;
    t.nums[0] = this.batched;
    t.nums[1] = this.batchStacks ? 1 : 0;
    t.nums[2] = this.batchMemory ? 1 : 0;
    const len = this.batchBytes;
    this.batched = 0;
    this.batchBytes = 0;
    this.inBatch = this.batching;
    const done = () => {
      this.inBatch = false;
    };
    const r = this.queue(() => this.send(C.STEPS, len));
    if (r === undefined) return done();
    return r.then(done, (err) => {
      done();
      throw err;
    });
  }

  // ------------------------------------------------------------ frames

  /** Gas the transaction's own frame started with (geth's ctx.intrinsicGas is the limit less it). */
  private topGas = 0n;

  private idOf(frame: Frame): number {
    let id = this.frameIds.get(frame);
    if (id === undefined) {
      id = this.nextFrameId++;
      this.frameIds.set(frame, id);
    }
    return id;
  }

  /** The pending CREATE frame's address is now known: send its enter first. */
  private flushCreate(address: string): void | Promise<void> {
    const f = this.pendingCreate;
    if (f === undefined) return;
    this.pendingCreate = undefined;
    return this.sendEnter(f, address);
  }

  // ------------------------------------------------------------ sending

  /** Run `fn` after the hooks still being answered; remember the first failure. */
  private queue(fn: () => void | Promise<void>): void | Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    const run = () => {
      if (this.failure !== undefined) throw this.failure;
      return fn();
    };
    let p: void | Promise<void>;
    if (this.chain !== undefined) p = this.chain.then(run);
    else {
      try {
        p = run();
      } catch (err) {
        this.failure ??= err;
        throw err;
      }
    }
    if (p === undefined) return;
    const settled: Promise<void> = p.then(
      () => {
        if (this.chain === settled) this.chain = undefined;
      },
      (err) => {
        this.failure ??= err;
        if (this.chain === settled) this.chain = undefined;
      },
    );
    this.chain = settled;
    return p;
  }

  private sendFault(error: string): void | Promise<void> {
    return this.send(C.FAULT, this.putString(error));
  }

  private sendEnter(frame: Frame, to: string): void | Promise<void> {
    const t = this.thread!;
    t.nums[0] = FRAME_TYPES.indexOf(frame.type as (typeof FRAME_TYPES)[number]);
    t.nums[1] = Number(frame.gas);
    t.nums[2] = frame.value === undefined ? 0 : 1;
    const b = t.bytes;
    b.set(addressBytes(frame.from), 0);
    b.set(addressBytes(to), 20);
    b.set(setLengthLeft(bigIntToBytes(frame.value ?? 0n), 32), 40);
    const input = frame.input.length > PAYLOAD - 72 ? frame.input.subarray(0, PAYLOAD - 72) : frame.input;
    b.set(input, 72);
    return this.send(C.ENTER, 72 + input.length);
  }

  private sendExit(result: FrameResult): void | Promise<void> {
    const t = this.thread!;
    t.nums[0] = Number(result.gasUsed);
    let at = 0;
    if (result.error !== undefined) {
      at = t.bytes.length > 0 ? Buffer.from(t.bytes.buffer, t.bytes.byteOffset, t.bytes.length).write(result.error, 0, 'utf8') : 0;
      t.nums[1] = at;
    } else t.nums[1] = -1;
    const out = result.output.length > PAYLOAD - at ? result.output.subarray(0, PAYLOAD - at) : result.output;
    t.bytes.set(out, at);
    return this.send(C.EXIT, at + out.length);
  }

  private putString(s: string): number {
    const t = this.thread!;
    return Buffer.from(t.bytes.buffer, t.bytes.byteOffset, t.bytes.length).write(s, 0, 'utf8');
  }



  /** Hand a hook over and serve the tracer until it is done with it. */
  private send(kind: number, len: number): void | Promise<void> {
    this.idleLoop = false;
    hand(this.thread!, kind, len);
    return this.pump();
  }

  private pump(): void | Promise<void> {
    for (;;) {
      if (!waitSync(this.thread!)) return waitAsync(this.thread!, this.deadline).then(() => this.pumpReplied());
      const r = this.onReply();
      if (r === 'done') return;
      if (r !== 'again') return r.then(() => this.pump());
    }
  }

  private pumpReplied(): void | Promise<void> {
    const r = this.onReply();
    if (r === 'done') return;
    if (r !== 'again') return r.then(() => this.pump());
    return this.pump();
  }







  private onReply(): Reply {
    const t = this.thread!;
    switch (t.ctl[MSG]) {
      case R.DONE:
        this.idleLoop = true;
        return 'done';
      case R.ERROR:
        throw tracerError(t);
      case R.CHUNK:
        this.resultText += Buffer.from(t.bytes.subarray(0, t.ctl[LEN])).toString('latin1');
        hand(t, C.MORE, 0);
        return 'again';
      case R.END:
        this.resultText = Buffer.from(this.resultText + Buffer.from(t.bytes.subarray(0, t.ctl[LEN])).toString('latin1'), 'latin1').toString('utf8');
        return 'done';
      case R.REQUEST: {
        const r = serveRequest(t, { step: this.step, frame: this.frame, sm: this.sm!, inBatch: this.inBatch });
        if (r === undefined) return 'again';
        return r;
      }
      default:
        throw new ChainError(`tracer thread sent an unknown message ${t.ctl[MSG]}`);
    }
  }

}

/** What a step can only read while it runs: a tracer naming none of it gets its steps in batches. */
const LIVE_READS = /getBalance|getNonce|getCode|getState|exists/;
/** Steps in one batch at most. */
const BATCH_STEPS = 512;

/** `then` after `r` when it is a promise, at once otherwise. */
function after(r: void | Promise<void>, then: () => void | Promise<void>): void | Promise<void> {
  return r === undefined ? then() : r.then(then);
}
