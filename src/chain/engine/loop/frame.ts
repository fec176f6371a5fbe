/**
 * One frame of the fast loop (run.ts): what it runs on, and where its registers (stack height,
 * gas, program counter, memory size) are kept while the loop waits on ethereumjs. The loop itself
 * keeps them in local variables and writes them here only when it stops or hands an instruction
 * over, so the hot path reads no object.
 */
import type { Common } from '@ethereumjs/common';
import { EVMError } from '@ethereumjs/evm';
import { bytesToHex } from '@ethereumjs/util';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { codeInfo } from './code.js';
import { limitOf, type RunLimit } from './limit.js';
import type { Env, Interp, OpEntry, OpTable, RunState, SstoreWatch } from './types.js';
import { fromBig, takeWords, toBig, type Words } from './words.js';

export const M = EVMError.errorMessages;

export const fail = (message: string): never => {
  throw new EVMError(message as never);
};

export function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
}

/** What the loop waits for when it returns a promise: the run limit's pause (go on where it stopped), */
export const STAGE_LIMIT = 0;
/** a gas handler's promise (its cost, then the rest of the instruction), */
export const STAGE_GAS = 1;
/** an opcode's promise (a call, a create, a state read; then the stack is read back). */
export const STAGE_OP = 2;

export class Frame {
  readonly rs: RunState;
  readonly env: Env;
  readonly common: Common;
  readonly jumpdest: Uint8Array;
  readonly codeView: DataView;
  readonly limit: RunLimit | undefined;
  readonly watch: SstoreWatch | undefined;
  /** ethereumjs's stack of BigInts: the truth below `low`, brought up to date by sync(). */
  readonly st: bigint[];
  readonly maxHeight: number;
  /** The loop's own stack (words.ts). */
  readonly w: Words;
  sp: number;
  /** The lowest word written since ethereumjs's stack was last brought up to date. */
  low: number;
  gas: number;
  pc: number;
  /** The memory's size in words and what it has cost (ethereumjs's run state has them as BigInts, written by sync() when they changed). */
  memWords: number;
  memCost: number;
  private memSynced: number;
  /** The memory's bytes and a view of them, renewed when memory grows. */
  mem: Uint8Array;
  view: DataView;
  untilCheck: number;
  callDataView: DataView | undefined;
  /** True while ethereumjs's code holds the run state (see sync). */
  handedOver = false;
  /** While the loop waits: what for, the instruction handed over, and from which word it changed the stack. */
  stage = STAGE_LIMIT;
  entry: OpEntry | undefined;
  from = 0;

  constructor(
    readonly interp: Interp,
    readonly code: Uint8Array,
    readonly table: OpTable,
    pc: number,
    checkEvery: number,
  ) {
    const rs = (this.rs = interp._runState);
    this.env = interp._env;
    this.common = interp.common;
    this.jumpdest = codeInfo(code).jumpdest;
    this.codeView = viewOf(code);
    this.limit = limitOf(interp._evm);
    const watch = (this.watch = interp._evm.sstoreWatch);
    if (watch !== undefined) watch.frames++;
    const stack = rs.stack;
    this.st = stack._store;
    this.maxHeight = stack._maxHeight;
    this.w = takeWords();
    this.sp = this.low = stack._len;
    for (let i = 0; i < this.sp; i++) fromBig(this.w, i, this.st[i]);
    this.gas = Number(rs.gasLeft);
    this.pc = pc;
    this.memWords = this.memSynced = Number(rs.memoryWordCount);
    this.memCost = Number(rs.highestMemCost);
    this.mem = rs.memory._store;
    this.view = viewOf(this.mem);
    this.untilCheck = checkEvery;
    this.callDataView = undefined;
  }

  /**
   * Hand the run state to ethereumjs (the stack's words written since the last hand-over as
   * BigInts, its height, gas, program counter). While its code runs the run state is the truth: a
   * halt inside it (a REVERT, an out-of-gas) keeps what it charged.
   */
  sync(): void {
    if (this.handedOver) return;
    const st = this.st;
    const w = this.w;
    const sp = this.sp;
    for (let i = this.low; i < sp; i++) st[i] = toBig(w, i);
    this.low = sp;
    const rs = this.rs;
    rs.stack._len = sp;
    rs.gasLeft = BigInt(this.gas);
    rs.programCounter = this.pc;
    if (this.memWords !== this.memSynced) {
      rs.memoryWordCount = BigInt(this.memWords);
      rs.highestMemCost = BigInt(this.memCost);
      this.memSynced = this.memWords;
    }
    this.handedOver = true;
  }

  /**
   * Take the run state back after ethereumjs's code ran: the words from `from` up (what the
   * instruction took off the stack and put on it; below that it changed nothing).
   */
  resume(from: number): void {
    const rs = this.rs;
    const len = rs.stack._len;
    const st = this.st;
    const w = this.w;
    for (let i = from < 0 ? 0 : from; i < len; i++) fromBig(w, i, st[i]);
    this.sp = len;
    this.low = len;
    this.gas = Number(rs.gasLeft);
    this.pc = rs.programCounter;
    this.memWords = this.memSynced = Number(rs.memoryWordCount);
    this.memCost = Number(rs.highestMemCost);
    this.handedOver = false;
  }

  badJump(pc: number): never {
    // As ethereumjs words it: code hash, address and the JUMP's own offset.
    const where = `${bytesToHex((this.common.customCrypto.keccak256 ?? keccak_256)(this.code))}/${this.env.address.toString()}:${pc - 1}`;
    return fail(`${M.INVALID_JUMP} at ${where}`);
  }
}

/** What memory of `need` words costs in all (EIP-150's linear and quadratic terms). */
export function memoryCost(need: number, memoryGas: number, quadDivisor: number): number {
  return need * memoryGas + Math.floor((need * need) / quadDivisor);
}

/** Memory capacity for at least `bytes`, grown by doubling (ethereumjs grows by 8 KiB, copying all of it each time). */
export function capacity(memory: { _store: Uint8Array }, bytes: number): Uint8Array {
  const store = memory._store;
  if (bytes <= store.length) return store;
  let size = Math.max(store.length * 2, 8192);
  while (size < bytes) size *= 2;
  const grown = new Uint8Array(size);
  grown.set(store);
  memory._store = grown;
  return grown;
}

/** An exceptional halt (as ethereumjs tells them apart from failures of the node itself). */
export function isEVMError(e: unknown): e is EVMError {
  return typeof e === 'object' && e !== null && (e as { errorType?: unknown }).errorType === 'EVMError';
}
