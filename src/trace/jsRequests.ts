/**
 * What a JavaScript tracer asks the node for while a hook runs: the running step's stack and
 * memory, its contract (caller, address, value, input), state through `db`, and CREATE / CREATE2
 * addresses. Answered into the shared payload (jsProtocol.ts).
 */
import type { StateManagerInterface } from '@ethereumjs/common';
import { Address, bigIntToBytes, createContractAddress, createContractAddress2, setLengthLeft } from '@ethereumjs/util';
import type { Frame, StepView } from './driver.js';
import { C, LEN, PAYLOAD, Q } from './jsProtocol.js';
import { hand, type Thread } from './jsThreads.js';

/** What the request is about. */
export interface Live {
  step: StepView | undefined;
  frame: Frame | undefined;
  sm: StateManagerInterface;
  /** A batch of steps is running: what a step reads only while it runs cannot be answered. */
  inBatch: boolean;
}

export function addressBytes(hex: string): Uint8Array {
  return Buffer.from(hex.slice(2).padStart(40, '0'), 'hex');
}


/** Answer the tracer's request; a promise when state must be read first. */
export function serveRequest(t: Thread, live: Live): undefined | Promise<void> {
  const code = t.nums[0];
  const b = t.bytes;
  const answer = (len: number) => {
    t.nums[0] = 0;
    hand(t, C.ANSWER, len);
  };
  const refuse = (message: string) => {
    t.nums[0] = 1;
    hand(t, C.ANSWER, Buffer.from(b.buffer, b.byteOffset, b.length).write(message, 0, 'utf8'));
  };
  const address = () => new Address(b.slice(0, 20));
  const step = live.step;
  if (live.inBatch && code !== Q.CREATE && code !== Q.CREATE2) {
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
      const f = live.frame;
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
      return readState(t, live.sm, code, answer);
    default:
      return void refuse(`unknown request ${code}`);
  }
}

async function readState(t: Thread, sm: StateManagerInterface, code: number, answer: (len: number) => void): Promise<void> {
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
