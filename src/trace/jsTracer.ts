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
import { Worker } from 'node:worker_threads';
import { Address, bigIntToBytes, createContractAddress, createContractAddress2, setLengthLeft } from '@ethereumjs/util';
import type { StateManagerInterface } from '@ethereumjs/common';
import { ChainError } from '../chain/core/errors.js';
import type { Frame, FrameResult, StepView, Tracer, TxEndContext, TxStartContext } from './driver.js';
import { hexBytes } from './hex.js';
import { C, CONSTANTS, FRAME_TYPES, LEN, MSG, NODE_TURN, NUMS, NUMS_AT, PAYLOAD, PAYLOAD_AT, Q, R, SAB_BYTES, TRACER_TURN, TURN } from './jsProtocol.js';
import { sandboxBigInt } from './jsBigInt.js';
import { sandboxPrelude } from './jsSandbox.js';
import { tracerWorkerSource, type WorkerJob, type WorkerSetup } from './jsWorker.js';
import { opName } from './opcodes.js';

/** A tracer thread's heap bound. */
export const TRACER_HEAP_MB = 256;
/** Busy-wait rounds before a wait sleeps (a quick tracer answers within them). */
const SPIN = 20_000;
/** How long the EVM waits on the spot for a hook before it waits without holding the event loop. */
const SYNC_WAIT_MS = 2;
/** Idle tracer threads kept for the next traces, and how long. */
const KEEP_IDLE = 2;
const IDLE_MS = 30_000;

interface Thread {
  worker: Worker;
  ctl: Int32Array;
  nums: Float64Array;
  bytes: Uint8Array;
  /** Why the thread ended (undefined while it runs). */
  ended: string | undefined;
  exited: Promise<void>;
  timer?: NodeJS.Timeout;
}

const idle: Thread[] = [];
let setup: Omit<WorkerSetup, 'sab'> | undefined;

function spawn(): Thread {
  setup ??= {
    prelude: sandboxPrelude.toString(),
    bigint: sandboxBigInt.toString(),
    constants: CONSTANTS,
    opNames: Array.from({ length: 256 }, (_, i) => opName(i)),
  };
  const sab = new SharedArrayBuffer(SAB_BYTES);
  const worker = new Worker(tracerWorkerSource(), {
    eval: true,
    workerData: { ...setup, sab } satisfies WorkerSetup,
    resourceLimits: { maxOldGenerationSizeMb: TRACER_HEAP_MB, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
    stdout: true,
    stderr: true,
  });
  worker.unref();
  const t: Thread = {
    worker,
    ctl: new Int32Array(sab, 0, 16),
    nums: new Float64Array(sab, NUMS_AT, NUMS),
    bytes: new Uint8Array(sab, PAYLOAD_AT, PAYLOAD),
    ended: undefined,
    exited: Promise.resolve(),
  };
  t.exited = new Promise<void>((resolve) => {
    worker.on('error', (err: Error & { code?: string }) => {
      t.ended ??= err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? `tracer exceeded its memory limit (${TRACER_HEAP_MB} MB)` : `tracer thread failed: ${err.message}`;
    });
    worker.on('exit', () => {
      t.ended ??= 'tracer thread ended';
      const i = idle.indexOf(t);
      if (i !== -1) idle.splice(i, 1);
      resolve();
    });
  });
  return t;
}

function take(): Thread {
  for (;;) {
    const t = idle.pop();
    if (t === undefined) return spawn();
    clearTimeout(t.timer);
    if (t.ended === undefined) return t;
  }
}

function keep(t: Thread): void {
  if (t.ended !== undefined || idle.length >= KEEP_IDLE) {
    void t.worker.terminate();
    return;
  }
  t.timer = setTimeout(() => void t.worker.terminate(), IDLE_MS);
  t.timer.unref();
  idle.push(t);
}

/** Candidate precompile addresses (the EVM says which are active). */
const PRECOMPILE_CANDIDATES = [...Array.from({ length: 0x11 }, (_, i) => i + 1), 0x100];

export interface JsTracerTarget {
  from: Address;
  to?: Address;
  value: bigint;
  input: Uint8Array;
  gasLimit: bigint;
  gasPrice: bigint;
  type: 'CALL' | 'CREATE';
  coinbase?: Address;
  blockNumber?: bigint;
  blockHash?: Uint8Array;
  txIndex?: number;
  txHash?: Uint8Array;
  isPrecompile(address: string): boolean;
}

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
    await this.waitAsync();
    const kind = t.ctl[MSG];
    if (kind === R.ERROR) throw this.tracerError();
    this.hasStep = t.nums[0] === 1;
    this.hasFrames = t.nums[1] === 1;
    this.idleLoop = true;
  }

  opcode(step: StepView, cost: bigint, frame: Frame): Promise<void> | void {
    if (!this.hasStep) return this.pendingCreate === undefined ? undefined : this.queue(() => this.flushCreate(step.address.toString()));
    if (this.batching && this.pendingCreate === undefined && this.chain === undefined && this.failure === undefined) return this.batchStep(step, cost, frame);
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
    const t = this.target;
    const top = ctx.top;
    const c: Record<string, unknown> = {
      type: t.type,
      from: t.from.toString(),
      to: t.to?.toString() ?? ctx.createdAddress?.toString() ?? ZERO_ADDRESS,
      input: hexBytes(t.input),
      gas: Number(t.gasLimit),
      gasUsed: Number(ctx.gasUsed),
      gasPrice: t.gasPrice.toString(),
      value: t.value.toString(),
      block: Number(t.blockNumber ?? 0n),
      output: hexBytes(top.output),
      time: goDuration(performance.now() - this.started),
      intrinsicGas: Number(t.gasLimit - this.topGas),
    };
    if (t.coinbase !== undefined) c.coinbase = t.coinbase.toString();
    if (top.error !== undefined) c.error = top.error;
    if (t.blockHash !== undefined) {
      c.blockHash = hexBytes(t.blockHash);
      if (t.txHash !== undefined) {
        c.txIndex = t.txIndex ?? 0;
        c.txHash = hexBytes(t.txHash);
      }
    }
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
      if (this.idleLoop) this.hand(t, C.STOP, 0);
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
      const v = (this.view ??= new DataView(t.bytes.buffer, t.bytes.byteOffset, t.bytes.byteLength));
      let at = this.batchBytes;
      v.setFloat64(at, step.opcode.code, true);
      v.setFloat64(at + 8, step.pc, true);
      v.setFloat64(at + 16, Number(step.gasLeft), true);
      v.setFloat64(at + 24, Number(cost), true);
      v.setFloat64(at + 32, frame.depth, true);
      v.setFloat64(at + 40, Number(step.gasRefund), true);
      v.setFloat64(at + 48, memLen, true);
      v.setFloat64(at + 56, stackLen, true);
      v.setFloat64(at + 64, this.idOf(frame), true);
      at += 72;
      if (this.batchStacks) {
        const s = step.stack;
        for (let i = 0; i < stackLen; i++, at += 32) {
          const w = s[i];
          v.setBigUint64(at, w >> 192n, false);
          v.setBigUint64(at + 8, (w >> 128n) & U64, false);
          v.setBigUint64(at + 16, (w >> 64n) & U64, false);
          v.setBigUint64(at + 24, w & U64, false);
        }
      }
      if (this.batchMemory && memLen > 0) {
        const mem = step.memory;
        t.bytes.set(mem.length > memLen ? mem.subarray(0, memLen) : mem, at);
        if (mem.length < memLen) t.bytes.fill(0, at + mem.length, at + memLen);
        at += memLen;
      }
      const withContractNow = this.batchContract && (this.batchFrame !== frame || this.batched === 0);
      v.setFloat64(at, withContractNow ? 1 : 0, true);
      if (withContractNow) {
        this.batchFrame = frame;
        v.setFloat64(at + 8, input.length, true);
        t.bytes.set(msg?.caller.bytes ?? addressBytes(frame.from), at + 16);
        t.bytes.set(step.address.bytes, at + 36);
        t.bytes.set(setLengthLeft(bigIntToBytes(msg?.value ?? frame.value ?? 0n), 32), at + 56);
        t.bytes.set(input, at + 88);
        at += 88 + input.length;
      } else at += 8;
      this.batchBytes = at;
      if (++this.batched >= BATCH_STEPS) return this.flush();
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
    this.inBatch = true;
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

  private hand(t: Thread, kind: number, len: number): void {
    t.ctl[MSG] = kind;
    t.ctl[LEN] = len;
    Atomics.store(t.ctl, TURN, TRACER_TURN);
    Atomics.notify(t.ctl, TURN);
  }

  /** Hand a hook over and serve the tracer until it is done with it. */
  private send(kind: number, len: number): void | Promise<void> {
    this.idleLoop = false;
    this.hand(this.thread!, kind, len);
    return this.pump();
  }

  private pump(): void | Promise<void> {
    for (;;) {
      if (!this.waitSync()) return this.waitAsync().then(() => this.pumpReplied());
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

  private waitSync(): boolean {
    const ctl = this.thread!.ctl;
    for (let i = 0; i < SPIN; i++) if (Atomics.load(ctl, TURN) === NODE_TURN) return true;
    const until = performance.now() + SYNC_WAIT_MS;
    while (Atomics.load(ctl, TURN) !== NODE_TURN) {
      const left = until - performance.now();
      if (left <= 0) return false;
      Atomics.wait(ctl, TURN, TRACER_TURN, left);
    }
    return true;
  }

  private async waitAsync(): Promise<void> {
    const t = this.thread!;
    while (Atomics.load(t.ctl, TURN) !== NODE_TURN) {
      if (t.ended !== undefined) throw new ChainError(t.ended);
      const left = this.deadline - performance.now();
      if (left <= 0) {
        t.ended = 'execution timeout';
        void t.worker.terminate();
        throw new ChainError('execution timeout');
      }
      const w = (Atomics as unknown as AtomicsAsync).waitAsync(t.ctl, TURN, TRACER_TURN, Math.min(left, 100));
      if (w.async) await Promise.race([w.value, t.exited]);
    }
  }

  private tracerError(): ChainError {
    const t = this.thread!;
    const len = t.ctl[LEN];
    const msg = Buffer.from(t.bytes.subarray(0, len)).toString('utf8');
    return new ChainError(msg);
  }

  private onReply(): Reply {
    const t = this.thread!;
    switch (t.ctl[MSG]) {
      case R.DONE:
        this.idleLoop = true;
        return 'done';
      case R.ERROR:
        throw this.tracerError();
      case R.CHUNK:
        this.resultText += Buffer.from(t.bytes.subarray(0, t.ctl[LEN])).toString('latin1');
        this.hand(t, C.MORE, 0);
        return 'again';
      case R.END:
        this.resultText = Buffer.from(this.resultText + Buffer.from(t.bytes.subarray(0, t.ctl[LEN])).toString('latin1'), 'latin1').toString('utf8');
        return 'done';
      case R.REQUEST: {
        const r = this.serve(t);
        if (r === undefined) return 'again';
        return r;
      }
      default:
        throw new ChainError(`tracer thread sent an unknown message ${t.ctl[MSG]}`);
    }
  }

  // ------------------------------------------------------------ the tracer's requests

  /** Answer the tracer's request; a promise when state must be read first. */
  private serve(t: Thread): undefined | Promise<void> {
    const code = t.nums[0];
    const b = t.bytes;
    const answer = (len: number) => {
      t.nums[0] = 0;
      this.hand(t, C.ANSWER, len);
    };
    const refuse = (message: string) => {
      t.nums[0] = 1;
      this.hand(t, C.ANSWER, Buffer.from(b.buffer, b.byteOffset, b.length).write(message, 0, 'utf8'));
    };
    const address = () => new Address(b.slice(0, 20));
    const step = this.step;
    if (this.inBatch && code !== Q.CREATE && code !== Q.CREATE2) {
      return void refuse('db can be read in step() only by a tracer whose source names its methods, and log.memory, log.contract, log.stack only by one that names them');
    }
    switch (code) {
      case Q.STACK: {
        if (step === undefined) return void refuse('no stack outside step');
        const s = step.stack;
        for (let i = 0; i < s.length; i++) b.set(setLengthLeft(bigIntToBytes(s[i]), 32), i * 32);
        return void answer(s.length * 32);
      }
      case Q.MEMORY: {
        if (step === undefined) return void refuse('no memory outside step');
        const from = t.nums[1];
        const n = t.nums[2];
        const mem = step.memory;
        b.fill(0, 0, n);
        if (from < mem.length) b.set(mem.subarray(from, Math.min(mem.length, from + n)), 0);
        return void answer(n);
      }
      case Q.CONTRACT: {
        const f = this.frame;
        if (f === undefined || step === undefined) return void refuse('no contract outside step');
        const msg = f.msg;
        b.set(msg?.caller.bytes ?? addressBytes(f.from), 0);
        b.set(step.address.bytes, 20);
        b.set(setLengthLeft(bigIntToBytes(msg?.value ?? f.value ?? 0n), 32), 40);
        const input = msg?.data ?? f.input;
        const inp = input.length > PAYLOAD - 72 ? input.subarray(0, PAYLOAD - 72) : input;
        b.set(inp, 72);
        return void answer(72 + inp.length);
      }
      case Q.CREATE: {
        b.set(createContractAddress(address(), BigInt(t.nums[1])).bytes, 0);
        return void answer(20);
      }
      case Q.CREATE2: {
        const len = t.ctl[LEN];
        b.set(createContractAddress2(address(), b.slice(20, 52), b.slice(52, len)).bytes, 0);
        return void answer(20);
      }
      case Q.BALANCE:
      case Q.NONCE:
      case Q.CODE:
      case Q.STATE:
      case Q.EXISTS:
        return this.readState(t, code, answer);
      default:
        return void refuse(`unknown request ${code}`);
    }
  }

  private async readState(t: Thread, code: number, answer: (len: number) => void): Promise<void> {
    const sm = this.sm!;
    const b = t.bytes;
    const address = new Address(b.slice(0, 20));
    switch (code) {
      case Q.BALANCE: {
        const acct = await sm.getAccount(address);
        return answer(Buffer.from(b.buffer, b.byteOffset, b.length).write((acct?.balance ?? 0n).toString(), 0, 'latin1'));
      }
      case Q.NONCE: {
        const acct = await sm.getAccount(address);
        t.nums[1] = Number(acct?.nonce ?? 0n);
        return answer(0);
      }
      case Q.CODE: {
        const code = await sm.getCode(address);
        const c = code.length > PAYLOAD ? code.subarray(0, PAYLOAD) : code;
        b.set(c, 0);
        return answer(c.length);
      }
      case Q.STATE: {
        const value = await sm.getStorage(address, b.slice(20, 52));
        b.set(setLengthLeft(value, 32), 0);
        return answer(32);
      }
      default: {
        const acct = await sm.getAccount(address);
        t.nums[1] = acct === undefined ? 0 : 1;
        return answer(0);
      }
    }
  }
}

/** Atomics.waitAsync (Node 16+; not in the ES2022 library types). */
interface AtomicsAsync {
  waitAsync(a: Int32Array, index: number, value: number, timeoutMs: number): { async: false; value: string } | { async: true; value: Promise<string> };
}

/** What a step can only read while it runs: a tracer naming none of it gets its steps in batches. */
const LIVE_READS = /getBalance|getNonce|getCode|getState|exists/;
/** Steps in one batch at most. */
const BATCH_STEPS = 512;
const U64 = (1n << 64n) - 1n;

const ZERO_ADDRESS = '0x' + '0'.repeat(40);

/** `then` after `r` when it is a promise, at once otherwise. */
function after(r: void | Promise<void>, then: () => void | Promise<void>): void | Promise<void> {
  return r === undefined ? then() : r.then(then);
}

function addressBytes(hex: string): Uint8Array {
  return Buffer.from(hex.slice(2).padStart(40, '0'), 'hex');
}

/** Errors geth's interpreter returns after the opcode was traced (its OnFault). */
function isExecutionFault(error: string): boolean {
  return (
    error === 'execution reverted' ||
    error === 'invalid jump destination' ||
    error.startsWith('invalid opcode') ||
    error === 'write protection' ||
    error === 'return data out of bounds'
  );
}

/** Go's time.Duration String() for a span in milliseconds. */
function goDuration(ms: number): string {
  if (ms < 0.001) return `${Math.round(ms * 1e6)}ns`;
  if (ms < 1) return `${+(ms * 1000).toFixed(3)}µs`;
  if (ms < 1000) return `${+ms.toFixed(6)}ms`;
  return `${+(ms / 1000).toFixed(9)}s`;
}
