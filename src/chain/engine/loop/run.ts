/**
 * The interpreter loop for execution nobody observes (no step listener, no debug log, no profiler):
 * what eth_call, eth_estimateGas, transactions and blocks run on. Traced runs keep ethereumjs's own
 * loop (install.ts decides), so every tracer sees exactly what it saw before.
 *
 * It runs on ethereumjs's own structures — the interpreter's run state, its stack array, its memory,
 * its opcode table — and does the hot, simple instructions itself: stack, arithmetic, comparison,
 * bit operations, jumps, memory words and KECCAK256, with gas counted in a local number. Every other
 * instruction (state access, calls, creates, logs, copies, returns) is handed to ethereumjs's own gas
 * handler and opcode function, in the same order of work as its loop, with the run state brought up
 * to date before and read back after. Anything unusual for an inlined instruction (a memory offset
 * past 16 MiB, a custom opcode table) takes the same ethereumjs path, so rare cases cost time,
 * never correctness. The Ethereum state tests gate every change here (test/consensus).
 *
 * A `RunLimit` (limit.ts) set on the EVM makes the loop check the clock every few thousand steps,
 * let the event loop run between slices, and halt once the deadline has passed.
 */
import { EVMError } from '@ethereumjs/evm';
import { bytesToHex } from '@ethereumjs/util';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { keccak256 } from '../../core/keccak.js';
import { codeInfo, pushValue } from './code.js';
import { limitOf } from './limit.js';
import type { Interp, OpTable, RunResult } from './types.js';

const M = EVMError.errorMessages;
const ZERO = 0n;
const ONE = 1n;
const MAX = (1n << 256n) - 1n;
/** Steps between two looks at the clock when a RunLimit is set. */
const CHECK_EVERY = 4096;
/** Inlined memory instructions handle offsets below this; larger ones take ethereumjs's path. */
const FAST_MEMORY = 1 << 24;
const EMPTY_KECCAK = BigInt(bytesToHex(keccak_256(new Uint8Array(0))));

const fail = (message: string): never => {
  throw new EVMError(message as never);
};

/**
 * 32 bytes read as a word where they are not memory: a hash, or a calldata word that runs past the
 * end (zero-padded). Copying them here costs less than making a DataView of their own.
 */
const wordBytes = new Uint8Array(32);
const wordView = new DataView(wordBytes.buffer);

/** keccak256 of `bytes` as a stack word. */
function keccakWord(bytes: Uint8Array): bigint {
  wordBytes.set(keccak256(bytes));
  return readWord(wordView, 0);
}

function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
}

const TWO_32 = 1n << 32n;

/** The 32 bytes at `at` of `v` as a word (the caller checks the bounds). */
function readWord(v: DataView, at: number): bigint {
  // Small values (pointers, lengths, counters) are most words read: one conversion instead of seven.
  if ((v.getUint32(at) | v.getUint32(at + 4) | v.getUint32(at + 8) | v.getUint32(at + 12) | v.getUint32(at + 16) | v.getUint32(at + 20) | v.getUint32(at + 24)) === 0) {
    return BigInt(v.getUint32(at + 28));
  }
  return (v.getBigUint64(at) << 192n) | (v.getBigUint64(at + 8) << 128n) | (v.getBigUint64(at + 16) << 64n) | v.getBigUint64(at + 24);
}

function writeWord(v: DataView, at: number, word: bigint): void {
  if (word < TWO_32) {
    v.setUint32(at, 0);
    v.setUint32(at + 4, 0);
    v.setUint32(at + 8, 0);
    v.setUint32(at + 12, 0);
    v.setUint32(at + 16, 0);
    v.setUint32(at + 20, 0);
    v.setUint32(at + 24, 0);
    v.setUint32(at + 28, Number(word));
    return;
  }
  v.setBigUint64(at, word >> 192n);
  v.setBigUint64(at + 8, BigInt.asUintN(64, word >> 128n));
  v.setBigUint64(at + 16, BigInt.asUintN(64, word >> 64n));
  v.setBigUint64(at + 24, BigInt.asUintN(64, word));
}

/** Memory capacity for at least `bytes`, grown by doubling (ethereumjs grows by 8 KiB, copying all of it each time). */
function capacity(memory: { _store: Uint8Array }, bytes: number): Uint8Array {
  const store = memory._store;
  if (bytes <= store.length) return store;
  let size = Math.max(store.length * 2, 8192);
  while (size < bytes) size *= 2;
  const grown = new Uint8Array(size);
  grown.set(store);
  memory._store = grown;
  return grown;
}

/** Calldata word at `pos`, zero past the end (CALLDATALOAD); `view` is a view of `data`. */
function callDataWord(data: Uint8Array, view: DataView, pos: bigint): bigint {
  if (pos >= BigInt(data.length)) return ZERO;
  const i = Number(pos);
  if (i + 32 <= data.length) return readWord(view, i);
  wordBytes.fill(0);
  wordBytes.set(data.subarray(i));
  return readWord(wordView, 0);
}

export async function fastRun(interp: Interp, code: Uint8Array, table: OpTable, startPc: number | undefined): Promise<RunResult> {
  const rs = interp._runState;
  rs.code = code;
  let pc = startPc ?? rs.programCounter;
  if (pc !== 0 && (pc < 0 || pc >= code.length)) throw new Error('Internal error: program counter not in range');
  const { jumpdest, pushes } = codeInfo(code);
  const { inline, fee, map, memoryGas, quadDivisor, keccakWordGas } = table;
  const common = interp.common;
  const env = interp._env;
  const stack = rs.stack;
  const st = stack._store;
  const maxHeight = stack._maxHeight;
  let sp = stack._len;
  let gas = Number(rs.gasLeft);
  let words = Number(rs.memoryWordCount);
  /** The memory's bytes and a view of them, renewed when memory grows. */
  let mem = rs.memory._store;
  let view = viewOf(mem);
  const limit = limitOf(interp._evm);
  const watch = interp._evm.sstoreWatch;
  if (watch !== undefined) watch.frames++;
  /** Made on first use in this frame: the calldata's view, the address and the caller as words. */
  let callDataView: DataView | undefined;
  let addressWord: bigint | undefined;
  let callerWord: bigint | undefined;
  let untilCheck = CHECK_EVERY;
  let err: EVMError | undefined;
  /** True while ethereumjs's code holds the run state (see sync). */
  let handedOver = false;

  /** Gas to extend memory to cover `end` bytes (updates the run state's memory size and cost). */
  const expand = (end: number): number => {
    const need = Math.ceil(end / 32);
    if (need <= words) return 0;
    const cost = need * memoryGas + Math.floor((need * need) / quadDivisor);
    const extra = cost - Number(rs.highestMemCost);
    rs.highestMemCost = BigInt(cost);
    rs.memoryWordCount = BigInt(need);
    words = need;
    return extra;
  };
  const charge = (amount: number): void => {
    if (gas < amount) {
      gas = 0;
      fail(M.OUT_OF_GAS);
    }
    gas -= amount;
  };
  const badJump = (): never => {
    // As ethereumjs words it: code hash, address and the JUMP's own offset.
    const where = `${bytesToHex((common.customCrypto.keccak256 ?? keccak_256)(code))}/${env.address.toString()}:${pc - 1}`;
    return fail(`${M.INVALID_JUMP} at ${where}`);
  };

  try {
    while (pc < code.length) {
      const op = code[pc];
      if (limit !== undefined && --untilCheck === 0) {
        untilCheck = CHECK_EVERY;
        const verdict = limit.check();
        if (verdict === true) charge(gas + 1);
        else if (verdict !== false) await verdict;
      }
      if (inline[op] === 0) {
        // ethereumjs's gas handler and opcode, in its order: dynamic gas, invalid check, gas, pc, opcode.
        if (op === 0x55 && watch !== undefined && gas < watch.leastLeft) watch.leastLeft = gas;
        sync();
        rs.opCode = op;
        const entry = map[op];
        const info = entry.opcodeInfo;
        let cost: bigint | Promise<bigint> = info.feeBigInt;
        if (info.dynamicGas) {
          cost = entry.gasHandler(rs, cost, common);
          if (cost instanceof Promise) cost = await cost;
        }
        if (info.isInvalid) fail(M.INVALID_OPCODE);
        interp.useGas(cost, info);
        rs.programCounter++;
        const done = entry.opHandler(rs, common);
        if (done instanceof Promise) await done;
        resume();
        if (limit !== undefined && limit.expired) charge(gas + 1);
        continue;
      }
      const f = fee[op];
      if (op >= 0x60 && op <= 0x7f) {
        // PUSH1..PUSH32
        charge(f);
        if (sp >= maxHeight) fail(M.STACK_OVERFLOW);
        const size = op - 0x5f;
        st[sp++] = pushes[pc] ??= pushValue(code, pc, size);
        pc += size + 1;
        continue;
      }
      if (op >= 0x80 && op <= 0x8f) {
        // DUP1..DUP16
        charge(f);
        const n = op - 0x7f;
        if (sp < n) fail(M.STACK_UNDERFLOW);
        if (sp >= maxHeight) fail(M.STACK_OVERFLOW);
        st[sp] = st[sp - n];
        sp++;
        pc++;
        continue;
      }
      if (op >= 0x90 && op <= 0x9f) {
        // SWAP1..SWAP16
        charge(f);
        const n = op - 0x8f;
        if (sp <= n) fail(M.STACK_UNDERFLOW);
        const top = st[sp - 1];
        st[sp - 1] = st[sp - 1 - n];
        st[sp - 1 - n] = top;
        pc++;
        continue;
      }
      switch (op) {
        case 0x00: // STOP
          charge(f);
          pc = code.length;
          continue;
        case 0x5b: // JUMPDEST
          charge(f);
          pc++;
          continue;
        case 0x50: // POP
          charge(f);
          if (sp < 1) fail(M.STACK_UNDERFLOW);
          sp--;
          pc++;
          continue;
        case 0x56: {
          // JUMP
          charge(f);
          if (sp < 1) fail(M.STACK_UNDERFLOW);
          const dest = st[--sp];
          pc++;
          if (dest >= BigInt(code.length) || jumpdest[Number(dest)] !== 1) badJump();
          pc = Number(dest);
          continue;
        }
        case 0x57: {
          // JUMPI
          charge(f);
          if (sp < 2) fail(M.STACK_UNDERFLOW);
          const dest = st[sp - 1];
          const cond = st[sp - 2];
          sp -= 2;
          pc++;
          if (cond !== ZERO) {
            if (dest >= BigInt(code.length) || jumpdest[Number(dest)] !== 1) badJump();
            pc = Number(dest);
          }
          continue;
        }
        case 0x15: // ISZERO
        case 0x19: {
          // NOT
          charge(f);
          if (sp < 1) fail(M.STACK_UNDERFLOW);
          const a = st[sp - 1];
          st[sp - 1] = op === 0x15 ? (a === ZERO ? ONE : ZERO) : MAX ^ a;
          pc++;
          continue;
        }
        case 0x5f: // PUSH0
        case 0x58: // PC
        case 0x59: // MSIZE
        case 0x5a: // GAS
        case 0x30: // ADDRESS
        case 0x33: // CALLER
        case 0x34: // CALLVALUE
        case 0x36: {
          // CALLDATASIZE
          charge(f);
          if (sp >= maxHeight) fail(M.STACK_OVERFLOW);
          st[sp++] =
            op === 0x5f ? ZERO
            : op === 0x58 ? BigInt(pc)
            : op === 0x59 ? BigInt(words * 32)
            : op === 0x5a ? BigInt(gas)
            : op === 0x30 ? (addressWord ??= readAddress(env.address.bytes))
            : op === 0x33 ? (callerWord ??= readAddress(env.caller.bytes))
            : op === 0x34 ? env.callValue
            : BigInt(env.callData.length);
          pc++;
          continue;
        }
        case 0x35: {
          // CALLDATALOAD
          charge(f);
          if (sp < 1) fail(M.STACK_UNDERFLOW);
          st[sp - 1] = callDataWord(env.callData, (callDataView ??= viewOf(env.callData)), st[sp - 1]);
          pc++;
          continue;
        }
        case 0x51: // MLOAD
        case 0x52: // MSTORE
        case 0x53: {
          // MSTORE8
          // Checked as ethereumjs does: the offset for the gas, then the value for the store.
          if (sp < 1) fail(M.STACK_UNDERFLOW);
          const offset = st[sp - 1];
          if (offset >= FAST_MEMORY) break; // ethereumjs's path
          const at = Number(offset);
          const end = at + (op === 0x53 ? 1 : 32);
          charge(f + expand(end));
          if (op !== 0x51 && sp < 2) fail(M.STACK_UNDERFLOW);
          if (rs.memory._store !== mem || end > mem.length) {
            mem = capacity(rs.memory, end);
            view = viewOf(mem);
          }
          if (op === 0x51) st[sp - 1] = readWord(view, at);
          else {
            if (op === 0x52) writeWord(view, at, st[sp - 2]);
            else mem[at] = Number(st[sp - 2] & 0xffn);
            sp -= 2;
          }
          pc++;
          continue;
        }
        case 0x20: {
          // KECCAK256
          if (sp < 2) fail(M.STACK_UNDERFLOW);
          const offset = st[sp - 1];
          const length = st[sp - 2];
          if (length === ZERO) {
            charge(f);
            st[sp - 2] = EMPTY_KECCAK;
            sp--;
            pc++;
            continue;
          }
          if (offset >= FAST_MEMORY || length >= FAST_MEMORY) break;
          const at = Number(offset);
          const len = Number(length);
          charge(f + expand(at + len) + keccakWordGas * Math.ceil(len / 32));
          if (rs.memory._store !== mem || at + len > mem.length) {
            mem = capacity(rs.memory, at + len);
            view = viewOf(mem);
          }
          st[sp - 2] = keccakWord(mem.subarray(at, at + len));
          sp--;
          pc++;
          continue;
        }
        default: {
          // Two-operand instructions: a is the top of the stack, b the one below.
          charge(f);
          if (sp < 2) fail(M.STACK_UNDERFLOW);
          const a = st[sp - 1];
          const b = st[sp - 2];
          let r: bigint;
          switch (op) {
            case 0x01: r = BigInt.asUintN(256, a + b); break; // ADD
            case 0x02: r = BigInt.asUintN(256, a * b); break; // MUL
            case 0x03: r = BigInt.asUintN(256, a - b); break; // SUB
            case 0x04: r = b === ZERO ? ZERO : a / b; break; // DIV
            case 0x06: r = b === ZERO ? ZERO : a % b; break; // MOD
            case 0x10: r = a < b ? ONE : ZERO; break; // LT
            case 0x11: r = a > b ? ONE : ZERO; break; // GT
            case 0x12: r = BigInt.asIntN(256, a) < BigInt.asIntN(256, b) ? ONE : ZERO; break; // SLT
            case 0x13: r = BigInt.asIntN(256, a) > BigInt.asIntN(256, b) ? ONE : ZERO; break; // SGT
            case 0x14: r = a === b ? ONE : ZERO; break; // EQ
            case 0x16: r = a & b; break; // AND
            case 0x17: r = a | b; break; // OR
            case 0x18: r = a ^ b; break; // XOR
            case 0x1a: r = a >= 32n ? ZERO : (b >> ((31n - a) * 8n)) & 0xffn; break; // BYTE
            case 0x1b: r = a >= 256n ? ZERO : BigInt.asUintN(256, b << a); break; // SHL
            case 0x1c: r = a >= 256n ? ZERO : b >> a; break; // SHR
            default: throw new Error(`opcode 0x${op.toString(16)} is marked inline but has no implementation`);
          }
          st[sp - 2] = r;
          sp--;
          pc++;
          continue;
        }
      }
      // A memory instruction beyond the inlined range: ethereumjs's gas handler and opcode.
      sync();
      rs.opCode = op;
      const entry = map[op];
      let cost = entry.gasHandler(rs, entry.opcodeInfo.feeBigInt, common);
      if (cost instanceof Promise) cost = await cost;
      interp.useGas(cost, entry.opcodeInfo);
      rs.programCounter++;
      const done = entry.opHandler(rs, common);
      if (done instanceof Promise) await done;
      resume();
    }
  } catch (e) {
    if (!isEVMError(e)) {
      sync();
      throw e;
    }
    if (e.error !== M.STOP) err = e;
  }
  sync();
  return { runState: rs, exceptionError: err };

  /**
   * Hand the run state to ethereumjs (stack height, gas, program counter). While its code runs the
   * run state is the truth: a halt inside it (a REVERT, an out-of-gas) keeps what it charged.
   */
  function sync(): void {
    if (handedOver) return;
    stack._len = sp;
    rs.gasLeft = BigInt(gas);
    rs.programCounter = pc;
    handedOver = true;
  }
  /** Take the run state back after ethereumjs's code ran. */
  function resume(): void {
    sp = stack._len;
    gas = Number(rs.gasLeft);
    pc = rs.programCounter;
    words = Number(rs.memoryWordCount);
    handedOver = false;
  }
}

/** An exceptional halt (as ethereumjs tells them apart from failures of the node itself). */
function isEVMError(e: unknown): e is EVMError {
  return typeof e === 'object' && e !== null && (e as { errorType?: unknown }).errorType === 'EVMError';
}

/** A 20-byte address as a stack word. */
function readAddress(bytes: Uint8Array): bigint {
  return BigInt(bytesToHex(bytes));
}
