/**
 * One step of a batch, as the tracer's side reads it (jsSandbox.ts, `C.STEPS`): 9 float64 fields
 * (op, pc, gas, cost, depth, refund, memory length, stack length, frame id), the stack's words
 * (32 bytes each, bottom first) when the batch carries stacks, the memory when it carries memory,
 * then a float64 flag and, when set, the frame's contract: input length (float64), caller (20),
 * address (20), value (32), input.
 */
import { bigIntToBytes, setLengthLeft } from '@ethereumjs/util';
import type { Frame, StepView } from './driver.js';
import { addressBytes } from './jsRequests.js';

const U64 = (1n << 64n) - 1n;

export interface StepRecord {
  step: StepView;
  cost: bigint;
  frame: Frame;
  frameId: number;
  memLen: number;
  stack: boolean;
  memory: boolean;
  contract: boolean;
}

/** Write `r` at `at`; where the next record goes. */
export function writeStep(bytes: Uint8Array, v: DataView, at: number, r: StepRecord): number {
  const { step, frame, memLen } = r;
  const stackLen = step.stack.length;
  v.setFloat64(at, step.opcode.code, true);
  v.setFloat64(at + 8, step.pc, true);
  v.setFloat64(at + 16, Number(step.gasLeft), true);
  v.setFloat64(at + 24, Number(r.cost), true);
  v.setFloat64(at + 32, frame.depth, true);
  v.setFloat64(at + 40, Number(step.gasRefund), true);
  v.setFloat64(at + 48, memLen, true);
  v.setFloat64(at + 56, stackLen, true);
  v.setFloat64(at + 64, r.frameId, true);
  at += 72;
  if (r.stack) {
    const s = step.stack;
    for (let i = 0; i < stackLen; i++, at += 32) {
      const w = s[i];
      v.setBigUint64(at, w >> 192n, false);
      v.setBigUint64(at + 8, (w >> 128n) & U64, false);
      v.setBigUint64(at + 16, (w >> 64n) & U64, false);
      v.setBigUint64(at + 24, w & U64, false);
    }
  }
  if (r.memory && memLen > 0) {
    const mem = step.memory;
    bytes.set(mem.length > memLen ? mem.subarray(0, memLen) : mem, at);
    if (mem.length < memLen) bytes.fill(0, at + mem.length, at + memLen);
    at += memLen;
  }
  v.setFloat64(at, r.contract ? 1 : 0, true);
  if (!r.contract) return at + 8;
  const msg = frame.msg;
  const input = msg?.data ?? frame.input;
  v.setFloat64(at + 8, input.length, true);
  bytes.set(msg?.caller.bytes ?? addressBytes(frame.from), at + 16);
  bytes.set(step.address.bytes, at + 36);
  bytes.set(setLengthLeft(bigIntToBytes(msg?.value ?? frame.value ?? 0n), 32), at + 56);
  bytes.set(input, at + 88);
  return at + 88 + input.length;
}
