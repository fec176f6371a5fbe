/**
 * Counting the instructions of one run (a mined block's transactions, an eth_call, a traced
 * transaction) into a coverage recorder: the EVM's message events follow the frames, a
 * synchronous step listener counts each instruction of code that has source, and for a JUMPI
 * whether it jumped. Listeners are attached only for the run.
 */
import type { InterpreterStep, Message } from '@ethereumjs/evm';
import type { CodeCounters, CoverageRecorder } from '../core/coverage.js';

interface Emitter {
  on(event: string, fn: (...args: any[]) => void): unknown;
  removeListener(event: string, fn: (...args: any[]) => void): unknown;
}

const OP_JUMPI = 0x57;

interface Live {
  msg: Message;
  /** Told at entry: a CREATE's message gets its address before the first step. */
  create: boolean;
  /** Undefined until the frame's first step (the code is loaded after beforeMessage); null: no source. */
  counters: CodeCounters | null | undefined;
}

/** Run `run` with its executed instructions counted into `recorder`. */
export async function recordCoverage<T>(events: Emitter | undefined, recorder: CoverageRecorder, run: () => Promise<T>): Promise<T> {
  if (events === undefined) return run();
  const live: Live[] = [];
  const onBefore = (msg: Message) => {
    live.push({ msg, create: msg.to === undefined, counters: undefined });
  };
  const onAfter = () => {
    live.pop();
  };
  const onStep = (step: InterpreterStep) => {
    const f = live[live.length - 1];
    if (f === undefined) return;
    let c = f.counters;
    if (c === undefined) {
      const create = f.create;
      const code = f.msg.code instanceof Uint8Array ? f.msg.code : create ? f.msg.data : undefined;
      c = f.counters = (code !== undefined && code.length > 0 ? recorder.counters(code, create) : undefined) ?? null;
    }
    if (c === null) return;
    const pc = step.pc;
    if (pc >= c.hits.length) return;
    c.hits[pc]!++;
    if (step.opcode.code === OP_JUMPI) {
      const stack = step.stack;
      if (stack.length >= 2 && stack[stack.length - 2] !== 0n) c.jumped[pc]!++;
    }
  };
  events.on('beforeMessage', onBefore);
  events.on('afterMessage', onAfter);
  events.on('step', onStep);
  try {
    return await run();
  } finally {
    events.removeListener('beforeMessage', onBefore);
    events.removeListener('afterMessage', onAfter);
    events.removeListener('step', onStep);
  }
}
