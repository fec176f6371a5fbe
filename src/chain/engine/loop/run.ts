/**
 * The interpreter loop for execution nobody observes (no step listener, no debug log, no profiler):
 * what eth_call, eth_estimateGas, transactions and blocks run on. Traced runs keep ethereumjs's own
 * loop (install.ts decides), so every tracer sees exactly what it saw before.
 *
 * It runs on ethereumjs's own structures — the interpreter's run state, its memory, its opcode table —
 * with a stack of its own: words as limbs in a typed array (words.ts), so an inlined instruction
 * allocates nothing; ethereumjs's stack of BigInts is brought up to date only when an instruction
 * is handed to ethereumjs (and at the end of the frame). It does the hot, simple instructions
 * itself (binary.ts has the less common two-operand ones): stack, arithmetic, comparison,
 * bit operations, jumps, memory words and KECCAK256, with gas counted in a local number. Every other
 * instruction (state access, calls, creates, logs, copies, returns) is handed to ethereumjs's own gas
 * handler and opcode function, in the same order of work as its loop, with the run state brought up
 * to date before and read back after. Anything unusual for an inlined instruction (a memory offset
 * past 16 MiB, a custom opcode table) takes the same ethereumjs path, so rare cases cost time,
 * never correctness. The Ethereum state tests gate every change here (test/consensus).
 * The loop proper (`steps`) is synchronous, its registers in local variables: it returns when the
 * code ends, or with a promise when ethereumjs's code or the run limit must be awaited, and
 * `fastRun` awaits it and calls it again. A `RunLimit` (limit.ts) set on the EVM makes the loop check the clock every few thousand steps,
 * let the event loop run between slices, and halt once the deadline has passed.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { keccakView } from '../../core/keccak.js';
import { capacity, fail, Frame, isEVMError, memoryCost, M, STAGE_GAS, STAGE_LIMIT, STAGE_OP, viewOf } from './frame.js';
import type { EVMError } from '@ethereumjs/evm';
import type { Interp, OpTable, RunResult } from './types.js';
import { binary } from './binary.js';
import { add, compare, fromBig, giveWords, isZero, load, POPS, setAddress, setBytes, setNum, small, sub, widen } from './words.js';

/** Steps between two looks at the clock when a RunLimit is set. */
const CHECK_EVERY = 4096;
const TWO_32 = 4294967296;
/** Inlined memory instructions handle offsets below this; larger ones take ethereumjs's path. */
const FAST_MEMORY = 1 << 24;
/** keccak256 of nothing, read as a word. */
const EMPTY_KECCAK = new DataView(Uint8Array.from(keccak_256(new Uint8Array(0))).buffer);

const outOfGas = (): never => fail(M.OUT_OF_GAS);

export async function fastRun(interp: Interp, code: Uint8Array, table: OpTable, startPc: number | undefined): Promise<RunResult> {
  const rs = interp._runState;
  rs.code = code;
  const pc = startPc ?? rs.programCounter;
  if (pc !== 0 && (pc < 0 || pc >= code.length)) throw new Error('Internal error: program counter not in range');
  const f = new Frame(interp, code, table, pc, CHECK_EVERY);
  let err: EVMError | undefined;
  try {
    for (;;) {
      const waiting = steps(f);
      if (waiting === undefined) break;
      const stage = f.stage;
      const value = await waiting;
      if (stage === STAGE_LIMIT) continue;
      if (stage === STAGE_GAS) {
        // The rest of the instruction, as in steps().
        const entry = f.entry!;
        const info = entry.opcodeInfo;
        if (info.isInvalid) fail(M.INVALID_OPCODE);
        interp.useGas(value as bigint, info);
        rs.programCounter++;
        const done = entry.opHandler(rs, f.common);
        if (done instanceof Promise) await done;
      }
      f.resume(f.from);
      if (f.limit !== undefined && f.limit.expired) {
        f.gas = 0;
        outOfGas();
      }
    }
  } catch (e) {
    if (!isEVMError(e)) {
      f.sync();
      giveWords(f.w);
      throw e;
    }
    if (e.error !== M.STOP) err = e;
  }
  f.sync();
  giveWords(f.w);
  return { runState: rs, exceptionError: err };
}

/**
 * Run `f` until its code ends (undefined) or something must be awaited (a promise; `f.stage` says
 * what follows it). Registers live in locals and go back to `f` whenever it returns or throws.
 */
function steps(f: Frame): Promise<unknown> | undefined {
  const { rs, code, env, jumpdest, codeView, limit, watch, maxHeight, w } = f;
  const { inline, fee, upfront, map, memoryGas, quadDivisor, keccakWordGas } = f.table;
  const common = f.common;
  const s = w.u32;
  const wd = w.wide;
  const length = code.length;
  let sp = f.sp;
  let low = f.low;
  let gas = f.gas;
  let pc = f.pc;
  let memWords = f.memWords;
  let memCost = f.memCost;
  let mem = f.mem;
  let view = f.view;
  let untilCheck = f.untilCheck;
  try {
    while (pc < length) {
      const op = code[pc];
      if (limit !== undefined && --untilCheck === 0) {
        untilCheck = CHECK_EVERY;
        const verdict = limit.check();
        if (verdict === true) {
          gas = 0;
          outOfGas();
        } else if (verdict !== false) {
          f.stage = STAGE_LIMIT;
          return verdict;
        }
      }
      let memOp = false;
      if (inline[op] === 1) {
        if ((gas -= upfront[op]) < 0) {
          gas = 0;
          outOfGas();
        }
        if (op >= 0x60 && op <= 0x7f) {
          // PUSH1..PUSH32
          if (sp >= maxHeight) fail(M.STACK_OVERFLOW);
          if (op === 0x60 && pc + 1 < length) {
            s[sp << 3] = code[pc + 1];
            wd[sp] = 0;
          } else setBytes(s, wd, sp, code, codeView, pc + 1, op - 0x5f);
          if (sp < low) low = sp;
          sp++;
          pc += op - 0x5e;
          continue;
        }
        if (op >= 0x80 && op <= 0x8f) {
          // DUP1..DUP16
          const n = op - 0x7f;
          if (sp < n) fail(M.STACK_UNDERFLOW);
          if (sp >= maxHeight) fail(M.STACK_OVERFLOW);
          const x = sp << 3;
          const y = (sp - n) << 3;
          if (wd[sp - n] === 0) {
            s[x] = s[y];
            wd[sp] = 0;
          } else {
            for (let k = 0; k < 8; k++) s[x + k] = s[y + k];
            wd[sp] = 1;
          }
          if (sp < low) low = sp;
          sp++;
          pc++;
          continue;
        }
        if (op >= 0x90 && op <= 0x9f) {
          // SWAP1..SWAP16
          const n = op - 0x8f;
          if (sp <= n) fail(M.STACK_UNDERFLOW);
          const i = sp - 1;
          const j = sp - 1 - n;
          const x = i << 3;
          const y = j << 3;
          if ((wd[i] | wd[j]) === 0) {
            const t = s[x];
            s[x] = s[y];
            s[y] = t;
          } else {
            widen(s, wd, i);
            widen(s, wd, j);
            for (let k = 0; k < 8; k++) {
              const t = s[x + k];
              s[x + k] = s[y + k];
              s[y + k] = t;
            }
          }
          if (j < low) low = j;
          pc++;
          continue;
        }
        switch (op) {
          case 0x00: // STOP
            pc = length;
            continue;
          case 0x5b: // JUMPDEST
            pc++;
            continue;
          case 0x50: // POP
            if (sp < 1) fail(M.STACK_UNDERFLOW);
            sp--;
            pc++;
            continue;
          case 0x56: {
            // JUMP
            if (sp < 1) fail(M.STACK_UNDERFLOW);
            sp--;
            pc++;
            const d = wd[sp] === 0 ? s[sp << 3] : small(s, wd, sp);
            if (d < 0 || d >= length || jumpdest[d] !== 1) f.badJump(pc);
            pc = d;
            continue;
          }
          case 0x57: {
            // JUMPI
            if (sp < 2) fail(M.STACK_UNDERFLOW);
            sp -= 2;
            pc++;
            if (wd[sp] === 0 ? s[sp << 3] !== 0 : !isZero(s, wd, sp)) {
              const d = wd[sp + 1] === 0 ? s[(sp + 1) << 3] : small(s, wd, sp + 1);
              if (d < 0 || d >= length || jumpdest[d] !== 1) f.badJump(pc);
              pc = d;
            }
            continue;
          }
          case 0x15: // ISZERO
          case 0x19: {
            // NOT
            if (sp < 1) fail(M.STACK_UNDERFLOW);
            const i = sp - 1;
            const x = i << 3;
            if (op === 0x15) {
              s[x] = isZero(s, wd, i) ? 1 : 0;
              wd[i] = 0;
            } else {
              widen(s, wd, i);
              for (let k = 0; k < 8; k++) s[x + k] = ~s[x + k];
            }
            if (i < low) low = i;
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
            if (sp >= maxHeight) fail(M.STACK_OVERFLOW);
            if (op === 0x30 || op === 0x33) setAddress(s, wd, sp, (op === 0x30 ? env.address : env.caller).bytes);
            else if (op === 0x34) fromBig(w, sp, env.callValue);
            else setNum(s, wd, sp, op === 0x5f ? 0 : op === 0x58 ? pc : op === 0x59 ? memWords * 32 : op === 0x5a ? gas : env.callData.length);
            if (sp < low) low = sp;
            sp++;
            pc++;
            continue;
          }
          case 0x35: {
            // CALLDATALOAD: zero past the end of the calldata.
            if (sp < 1) fail(M.STACK_UNDERFLOW);
            const i = sp - 1;
            const data = env.callData;
            const at = small(s, wd, i);
            if (at < 0 || at >= data.length) {
              s[i << 3] = 0;
              wd[i] = 0;
            } else setBytes(s, wd, i, data, (f.callDataView ??= viewOf(data)), at, 32);
            if (i < low) low = i;
            pc++;
            continue;
          }
          case 0x51: // MLOAD
          case 0x52: // MSTORE
          case 0x53: {
            // MSTORE8
            // Checked as ethereumjs does: the offset for the gas, then the value for the store.
            if (sp < 1) fail(M.STACK_UNDERFLOW);
            const i = sp - 1;
            const at = wd[i] === 0 ? s[i << 3] : small(s, wd, i);
            if (at < 0 || at >= FAST_MEMORY) {
              memOp = true; // ethereumjs's path
              break;
            }
            const end = at + (op === 0x53 ? 1 : 32);
            const need = (end + 31) >>> 5;
            let cost = fee[op];
            if (need > memWords) {
              const c = memoryCost(need, memoryGas, quadDivisor);
              cost += c - memCost;
              memCost = c;
              memWords = need;
            }
            if ((gas -= cost) < 0) {
              gas = 0;
              outOfGas();
            }
            if (op !== 0x51 && sp < 2) fail(M.STACK_UNDERFLOW);
            if (rs.memory._store !== mem || end > mem.length) {
              mem = capacity(rs.memory, end);
              view = viewOf(mem);
            }
            if (op === 0x51) {
              load(s, wd, i, view, at);
              if (i < low) low = i;
            } else {
              const v = (sp - 2) << 3;
              if (op === 0x53) mem[at] = s[v] & 0xff;
              else if (wd[sp - 2] === 0) {
                for (let k = 0; k < 28; k += 4) view.setUint32(at + k, 0);
                view.setUint32(at + 28, s[v]);
              } else for (let k = 0; k < 8; k++) view.setUint32(at + 28 - 4 * k, s[v + k]);
              sp -= 2;
            }
            pc++;
            continue;
          }
          case 0x20: {
            // KECCAK256
            if (sp < 2) fail(M.STACK_UNDERFLOW);
            const r = sp - 2;
            let digest: DataView;
            if (isZero(s, wd, r)) {
              if ((gas -= fee[op]) < 0) {
                gas = 0;
                outOfGas();
              }
              digest = EMPTY_KECCAK;
            } else {
              const at = small(s, wd, sp - 1);
              const len = small(s, wd, r);
              if (at < 0 || at >= FAST_MEMORY || len < 0 || len >= FAST_MEMORY) {
                memOp = true;
                break;
              }
              const need = (at + len + 31) >>> 5;
              let cost = fee[op] + keccakWordGas * ((len + 31) >>> 5);
              if (need > memWords) {
                const c = memoryCost(need, memoryGas, quadDivisor);
                cost += c - memCost;
                memCost = c;
                memWords = need;
              }
              if ((gas -= cost) < 0) {
                gas = 0;
                outOfGas();
              }
              if (rs.memory._store !== mem || at + len > mem.length) {
                mem = capacity(rs.memory, at + len);
                view = viewOf(mem);
              }
              digest = keccakView(mem, at, len);
            }
            load(s, wd, r, digest, 0);
            sp--;
            if (r < low) low = r;
            pc++;
            continue;
          }
          default: {
            // Two-operand instructions: x is the top of the stack, y the one below, and the result.
            if (sp < 2) fail(M.STACK_UNDERFLOW);
            const x = sp - 1;
            const y = sp - 2;
            const bx = x << 3;
            const by = y << 3;
            switch (op) {
              case 0x01: {
                // ADD
                const r = s[bx] + s[by];
                if ((wd[x] | wd[y]) === 0 && r < TWO_32) s[by] = r;
                else add(s, wd, x, y);
                break;
              }
              case 0x03: {
                // SUB
                if ((wd[x] | wd[y]) === 0 && s[bx] >= s[by]) s[by] = s[bx] - s[by];
                else sub(s, wd, x, y);
                break;
              }
              case 0x10: // LT
              case 0x11: // GT
              case 0x14: {
                // EQ
                const c = (wd[x] | wd[y]) === 0 ? (s[bx] === s[by] ? 0 : s[bx] < s[by] ? -1 : 1) : compare(s, wd, x, y);
                s[by] = (op === 0x10 ? c < 0 : op === 0x11 ? c > 0 : c === 0) ? 1 : 0;
                wd[y] = 0;
                break;
              }
              default: binary(w, op, x, y); // MUL, DIV, MOD, SLT, SGT, AND, OR, XOR, BYTE, SHL, SHR
            }
            sp--;
            if (y < low) low = y;
            pc++;
            continue;
          }
        }
      }
      // ethereumjs's gas handler and opcode, in its order: dynamic gas, invalid check, gas, pc,
      // opcode (also a memory instruction beyond the inlined range).
      if (op === 0x55 && watch !== undefined && gas < watch.leastLeft) watch.leastLeft = gas;
      const from = POPS[op] < 0 ? 0 : sp - POPS[op];
      f.sp = sp;
      f.low = low;
      f.gas = gas;
      f.pc = pc;
      f.memWords = memWords;
    f.memCost = memCost;
      f.memCost = memCost;
      f.sync();
      rs.opCode = op;
      const entry = map[op];
      const info = entry.opcodeInfo;
      let cost = info.feeBigInt;
      if (info.dynamicGas || memOp) {
        const paid = entry.gasHandler(rs, cost, common);
        if (paid instanceof Promise) {
          f.stage = STAGE_GAS;
          f.entry = entry;
          f.from = from;
          return paid;
        }
        cost = paid;
      }
      if (info.isInvalid) fail(M.INVALID_OPCODE);
      f.interp.useGas(cost, info);
      rs.programCounter++;
      const done = entry.opHandler(rs, common);
      if (done instanceof Promise) {
        f.stage = STAGE_OP;
        f.from = from;
        return done;
      }
      f.resume(from);
      sp = f.sp;
      low = f.low;
      gas = f.gas;
      pc = f.pc;
      memWords = f.memWords;
      memCost = f.memCost;
      if (limit !== undefined && limit.expired) {
        gas = 0;
        outOfGas();
      }
    }
    return undefined;
  } finally {
    f.sp = sp;
    f.low = low;
    f.gas = gas;
    f.pc = pc;
    f.memWords = memWords;
    f.memCost = memCost;
    f.mem = mem;
    f.view = view;
    f.untilCheck = untilCheck;
  }
}
