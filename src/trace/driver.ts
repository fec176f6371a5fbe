/**
 * Turns the ethereumjs EVM events ('beforeMessage', 'step', 'afterMessage') into geth-style
 * tracing hooks (OnEnter / OnOpcode / OnFault / OnLog / OnExit), filling in what ethereumjs
 * does not report the way geth does:
 *  - opcode cost: the step's fee, plus the gas forwarded by CALL-family opcodes (geth counts
 *    it in gasCost);
 *  - the implicit STOP geth executes (and traces) when code runs off its end;
 *  - call frames for CALL/CREATE that fail before entering (insufficient balance, depth);
 *  - the SELFDESTRUCT pseudo-frame;
 *  - geth's error strings, and which faults geth reports on the opcode itself.
 */
export type { StepView, Frame, FrameResult, LogEvent, TxStartContext, TxEndContext, Tracer, DriverTarget } from './hooks.js';
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import type { VM } from '@ethereumjs/vm';
import { memorySlice, wordToAddressHex } from './hex.js';
import { opcodeByte, type StepView, type Frame, type FrameResult, type Tracer, type DriverTarget } from './hooks.js';
import { memoryCopy } from '../chain/engine/internals.js';
import {
  OP,
  type FrameType,
  frameTypeOf,
  isCallOp,
  isCreateOp,
  isHalting,
  opName,
  stackOverflowMessage,
  stackUnderflowMessage,
} from './opcodes.js';

export class TraceTimeoutError extends Error {
  constructor() {
    super('execution timeout');
  }
}

interface Emitter {
  on(event: string, fn: (...args: any[]) => void): unknown;
  removeListener(event: string, fn: (...args: any[]) => void): unknown;
}

const CALL_STIPEND = 2300n;
const MAX_DEPTH = 1024;
const U64 = 1n << 64n;

/** geth's callGas (EIP-150): the gas a CALL forwards, given the gas left after its other costs. */
function forwardedGas(available: bigint, requested: bigint): bigint {
  const avail = available >= 0n ? available : available + U64;
  const cap = avail - avail / 64n;
  return requested < cap ? requested : cap;
}

/** Map an ethereumjs EVM error to geth's text for the same condition. */
function gethError(error: string, frame: Frame): string {
  switch (error) {
    case 'out of gas':
      if (frame.lastWasStep && frame.lastOp === OP.SSTORE && frame.lastGas <= CALL_STIPEND) {
        return 'out of gas: not enough gas for reentrancy sentry';
      }
      return 'out of gas';
    case 'stack underflow':
      return stackUnderflowMessage(frame.lastOp, frame.lastStackLen);
    case 'stack overflow':
      return stackOverflowMessage(frame.lastOp, frame.lastStackLen);
    case 'invalid JUMP':
      return 'invalid jump destination';
    case 'invalid opcode':
      return `invalid opcode: ${opName(frame.lastStep === undefined ? frame.lastOp : opcodeByte(frame.lastStep, frame))}`;
    case 'revert':
      return 'execution reverted';
    case 'static state change':
      return 'write protection';
    case 'create collision':
      return 'contract address collision';
    case 'code store out of gas':
      return 'contract creation code storage out of gas';
    case 'code size to deposit exceeds maximum code size':
      return 'max code size exceeded';
    case 'invalid bytecode deployed':
      return 'invalid code: must not begin with 0xef';
    case 'initcode exceeds max initcode size':
      return 'max initcode size exceeded';
    case 'value out of range':
      return 'return data out of bounds';
    case 'insufficient balance':
      return 'insufficient balance for transfer';
    default:
      return error;
  }
}

/** Errors geth raises before OnOpcode runs (and so reports on the struct log itself). */
function isPreExecutionFault(error: string): boolean {
  return error === 'out of gas' || error === 'stack underflow' || error === 'stack overflow';
}

/** Steps between two yields to the event loop while tracing. */
const PACE_STEPS = 1024;

export class TraceDriver {
  private readonly frames: Frame[] = [];
  private logCount: number;
  private stepCounter = 0;
  private readonly deadline: number;
  private abortError: unknown;
  private topResult: FrameResult | undefined;
  private readonly emitter: Emitter;

  constructor(
    vm: VM,
    private readonly target: DriverTarget,
    private readonly tracer: Tracer,
    timeoutMs: number,
  ) {
    this.logCount = target.logIndexOffset ?? 0;
    this.deadline = Date.now() + Math.max(0, timeoutMs);
    const events = (vm.evm as { events?: Emitter }).events;
    if (!events) throw new Error('the VM has no EVM event emitter');
    this.emitter = events;
  }

  /** Result of the transaction's own frame, once it has exited. */
  get top(): FrameResult | undefined {
    return this.topResult;
  }

  /** Attach the listeners, run `body`, detach. */
  async run<T>(body: () => Promise<T>): Promise<T> {
    const onBefore = (msg: Message, resolve: () => void) => {
      this.guarded(resolve, () => this.beforeMessage(msg));
    };
    const onAfter = (res: EVMResult, resolve: () => void) => {
      this.guarded(resolve, () => this.afterMessage(res));
    };
    // A long trace must not hold the event loop: every PACE_STEPS steps the EVM waits for a
    // macrotask turn, so other requests are answered meanwhile. The waiting listener is attached
    // only for that one step (the EVM awaits a promise per step for every two-argument listener).
    let paced = 0;
    const onPace = (_step: InterpreterStep, resolve: () => void) => {
      this.emitter.removeListener('step', onPace);
      setImmediate(resolve);
    };
    const pace = () => {
      if (++paced === PACE_STEPS) {
        paced = 0;
        this.emitter.on('step', onPace);
      }
    };
    const onStepSync = (step: InterpreterStep) => {
      if (this.abortError !== undefined) throw this.abortError;
      try {
        this.step(step);
      } catch (err) {
        // Remembered, so that every later event fails at once without tracing (a tracer's limit).
        this.abortError = err;
        throw err;
      }
      pace();
    };
    const onStepAsync = (step: InterpreterStep, resolve: () => void) => {
      this.guarded(resolve, () => this.step(step));
      pace();
    };
    const onStep = this.tracer.asyncSteps ? onStepAsync : onStepSync;
    this.emitter.on('beforeMessage', onBefore);
    this.emitter.on('afterMessage', onAfter);
    const steps = this.tracer.ignoresSteps !== true;
    if (steps) this.emitter.on('step', onStep);
    try {
      const out = await body();
      if (this.abortError !== undefined) throw this.abortError;
      return out;
    } catch (err) {
      throw this.abortError ?? err;
    } finally {
      this.emitter.removeListener('beforeMessage', onBefore);
      this.emitter.removeListener('afterMessage', onAfter);
      if (steps) {
        this.emitter.removeListener('step', onStep);
        this.emitter.removeListener('step', onPace);
      }
    }
  }

  /**
   * Run a listener body for an ethereumjs 2-argument (awaited) listener: a synchronous throw
   * rejects the EVM's wait; an asynchronous failure is remembered and thrown at the next event.
   */
  private guarded(resolve: () => void, body: () => Promise<void> | void): void {
    if (this.abortError !== undefined) throw this.abortError;
    const r = body();
    if (r === undefined) {
      resolve();
      return;
    }
    r.then(resolve, (err) => {
      this.abortError = err;
      resolve();
    });
  }

  private checkDeadline(): void {
    if (Date.now() > this.deadline) {
      this.abortError = new TraceTimeoutError();
      throw this.abortError;
    }
  }

  private beforeMessage(msg: Message): void {
    this.checkDeadline();
    const parent = this.frames[this.frames.length - 1];
    let frame: Frame;
    if (parent === undefined) {
      const t = this.target;
      frame = this.newFrame(1, t.type, t.from.toString(), t.to?.toString(), t.input, t.gasLimit, t.value, msg);
      frame.address = t.type === 'CALL' ? frame.to : undefined;
    } else {
      parent.pending = undefined;
      parent.lastWasStep = false;
      const type: FrameType = frameTypeOf(parent.lastOp) ?? (msg.to === undefined ? 'CREATE' : 'CALL');
      const from = parent.address ?? msg.caller.toString();
      let to: string | undefined;
      let address: string | undefined;
      if (type === 'CREATE' || type === 'CREATE2') {
        to = undefined;
      } else if (type === 'DELEGATECALL' || type === 'CALLCODE') {
        to = msg.codeAddress.toString();
        address = msg.to?.toString();
      } else {
        to = msg.to?.toString();
        address = to;
      }
      const value = type === 'STATICCALL' ? undefined : msg.value;
      // The call data may be a view into the caller's memory, which keeps changing: copy it.
      frame = this.newFrame(parent.depth + 1, type, from, to, msg.data.slice(), msg.gasLimit, value, msg);
      frame.address = address;
    }
    this.frames.push(frame);
    this.tracer.enter?.(frame);
  }

  private newFrame(
    depth: number,
    type: FrameType,
    from: string,
    to: string | undefined,
    input: Uint8Array,
    gas: bigint,
    value: bigint | undefined,
    msg: Message | undefined,
  ): Frame {
    return {
      depth,
      type,
      from,
      to,
      input,
      gas,
      value,
      address: undefined,
      returnData: EMPTY,
      msg,
      steps: 0,
      lastOp: -1,
      lastStackLen: 0,
      lastGas: 0n,
      lastStep: undefined,
      lastWasStep: false,
      pending: undefined,
      logCountAtEntry: this.logCount,
    };
  }

  private step(step: InterpreterStep): Promise<void> | void {
    if ((++this.stepCounter & 1023) === 0) this.checkDeadline();
    const frame = this.frames[this.frames.length - 1];
    if (frame === undefined) return;
    if (frame.pending !== undefined) this.failFast(frame);
    if (frame.address === undefined) frame.address = step.address.toString();
    const code = step.opcode.code;
    let cost = step.opcode.dynamicFee ?? BigInt(step.opcode.fee);
    const stack = step.stack;
    if (code >= OP.CREATE && (isCallOp(code) || isCreateOp(code))) {
      let forwarded = 0n;
      if (isCallOp(code) && stack.length > 0) forwarded = forwardedGas(step.gasLeft - cost, stack[stack.length - 1]);
      cost += forwarded;
      frame.pending = { step, cost, forwarded };
    }
    frame.steps++;
    frame.lastOp = code;
    frame.lastStackLen = stack.length;
    frame.lastGas = step.gasLeft;
    frame.lastStep = step;
    frame.lastWasStep = true;
    const r = this.tracer.opcode?.(step, cost, frame);
    if (code >= OP.LOG0 && code <= OP.LOG4 && this.tracer.log !== undefined) this.emitLog(step, frame, code - OP.LOG0);
    return r;
  }

  private emitLog(step: StepView, frame: Frame, topicCount: number): void {
    const stack = step.stack;
    const n = stack.length;
    if (n < 2 + topicCount) return;
    const topics: bigint[] = [];
    for (let i = 0; i < topicCount; i++) topics.push(stack[n - 3 - i]);
    const data = memorySlice(step.memory, stack[n - 1], stack[n - 2]);
    this.tracer.log!({ address: frame.address ?? step.address.toString(), topics, data, index: this.logCount++ }, frame);
  }

  /** A CALL/CREATE of `frame` returned without entering a sub-frame: report geth's failed frame. */
  private failFast(frame: Frame): void {
    const { step, cost, forwarded } = frame.pending!;
    frame.pending = undefined;
    const code = step.opcode.code;
    const stack = step.stack;
    const n = stack.length;
    const type = frameTypeOf(code)!;
    const tooDeep = frame.depth > MAX_DEPTH;
    let sub: Frame;
    if (isCreateOp(code)) {
      const value = stack[n - 1];
      const input = memorySlice(step.memory, stack[n - 2], stack[n - 3]);
      const left = step.gasLeft - cost;
      sub = this.newFrame(frame.depth + 1, type, frame.address!, undefined, input, left - left / 64n, value, undefined);
    } else {
      const withValue = code === OP.CALL || code === OP.CALLCODE;
      const value = withValue ? stack[n - 3] : code === OP.DELEGATECALL ? frame.value : undefined;
      const argsAt = withValue ? 4 : 3;
      const input = memorySlice(step.memory, stack[n - argsAt], stack[n - argsAt - 1]);
      let gas = forwarded;
      if (withValue && value !== undefined && value !== 0n) gas += CALL_STIPEND;
      sub = this.newFrame(frame.depth + 1, type, frame.address!, wordToAddressHex(stack[n - 2]), input, gas, value, undefined);
    }
    sub.address = sub.to;
    this.tracer.enter?.(sub);
    this.tracer.exit?.(sub, {
      output: EMPTY,
      gasUsed: 0n,
      error: tooDeep ? 'max call depth exceeded' : 'insufficient balance for transfer',
    });
    frame.returnData = EMPTY;
    frame.lastWasStep = false;
  }

  private afterMessage(res: EVMResult): Promise<void> | void {
    const frame = this.frames[this.frames.length - 1];
    if (frame === undefined) return;
    const exec = res.execResult;
    const err = exec.exceptionError?.error;
    if (frame.pending !== undefined) {
      // The CALL/CREATE was the frame's last opcode: it either faulted itself (err set)
      // or returned early and the code ended right after it.
      if (err === undefined) this.failFast(frame);
      else frame.pending = undefined;
    }
    const error = err === undefined ? undefined : gethError(err, frame);
    let faulted: Promise<void> | void = undefined;
    if (err !== undefined && frame.lastWasStep && isPreExecutionFault(err)) {
      faulted = this.tracer.fault?.(frame, error!);
    }
    if (err === undefined && frame.steps > 0) {
      if (frame.lastOp === OP.SELFDESTRUCT && frame.lastStep !== undefined) this.selfDestructFrame(frame, frame.lastStep);
      else if (!isHalting(frame.lastOp) && exec.runState !== undefined) this.implicitStop(frame, exec);
    }
    const finish = () => this.exitFrame(frame, res, error);
    if (faulted !== undefined) return faulted.then(finish);
    finish();
  }

  private exitFrame(frame: Frame, res: EVMResult, error: string | undefined): void {
    const exec = res.execResult;
    if (frame.type === 'CREATE' || frame.type === 'CREATE2') {
      const created = res.createdAddress ?? frame.msg?.to;
      if (created !== undefined) {
        frame.to = created.toString();
        if (frame.address === undefined) frame.address = frame.to;
      }
    }
    this.frames.pop();
    const parent = this.frames[this.frames.length - 1];
    const output = exec.returnValue ?? EMPTY;
    if (parent !== undefined) {
      const isCreate = frame.type === 'CREATE' || frame.type === 'CREATE2';
      const reverted = exec.exceptionError?.error === 'revert';
      parent.returnData = reverted || (!isCreate && error === undefined) ? output : EMPTY;
      parent.lastWasStep = false;
    }
    if (error !== undefined) this.logCount = frame.logCountAtEntry;
    const result: FrameResult = { output, gasUsed: exec.executionGasUsed, error };
    if (parent === undefined) this.topResult = result;
    this.tracer.exit?.(frame, result);
  }

  /** geth executes (and traces) a STOP when the program counter runs past the code. */
  private implicitStop(frame: Frame, exec: EVMResult['execResult']): void {
    if (this.tracer.opcode === undefined) return;
    const rs = exec.runState!;
    const words = Number(rs.memoryWordCount);
    const stop: StepView = {
      pc: rs.programCounter,
      opcode: { code: OP.STOP },
      gasLeft: rs.gasLeft,
      gasRefund: rs.gasRefund,
      stack: rs.stack.getStack(),
      memory: memoryCopy(rs, words * 32),
      address: frame.lastStep!.address,
      stateManager: frame.lastStep!.stateManager,
    };
    frame.lastOp = OP.STOP;
    frame.lastStackLen = stop.stack.length;
    frame.lastStep = stop;
    frame.lastWasStep = true;
    // State reads of a STOP are never needed, so an async hook result can be dropped.
    void this.tracer.opcode(stop, 0n, frame);
  }

  /** geth reports a successful SELFDESTRUCT as a sub-frame carrying the contract's balance. */
  private selfDestructFrame(frame: Frame, step: StepView): void {
    const stack = step.stack;
    const beneficiary = wordToAddressHex(stack[stack.length - 1]);
    const balance = step.account?.balance ?? 0n;
    const sub = this.newFrame(frame.depth + 1, 'SELFDESTRUCT', frame.address!, beneficiary, EMPTY, 0n, balance, undefined);
    sub.address = beneficiary;
    this.tracer.enter?.(sub);
    this.tracer.exit?.(sub, { output: EMPTY, gasUsed: 0n, error: undefined });
  }
}

const EMPTY = new Uint8Array(0);
