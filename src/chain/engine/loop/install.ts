/**
 * Puts the fast loop (run.ts) in front of ethereumjs's interpreter loop, once per process.
 *
 * ethereumjs does not export its Interpreter class; an EVM built with one custom opcode runs that
 * opcode once, and the opcode's run state names the interpreter, whose prototype is the one every
 * EVM of the process uses. Its `run` is wrapped: a run nobody observes (no step listener, no debug
 * log, no profiler, legacy code, none of the EIPs whose bookkeeping the loop does not do, gas that
 * fits a double exactly, a little-endian machine) goes through the fast loop; every other run, every traced one included,
 * through ethereumjs's own loop, unchanged.
 */
import type { Common } from '@ethereumjs/common';
import { createEVM } from '@ethereumjs/evm';
import { keccak256, readyKeccak } from '../../core/keccak.js';
import { fastRun } from './run.js';
import { LITTLE_ENDIAN } from './words.js';
import type { Interp, OpEntry, OpTable, RunResult } from './types.js';

/** Instructions the fast loop does itself, by ethereumjs's name for them. */
const INLINE: Record<string, readonly number[]> = {
  STOP: [0x00], ADD: [0x01], MUL: [0x02], SUB: [0x03], DIV: [0x04], MOD: [0x06],
  LT: [0x10], GT: [0x11], SLT: [0x12], SGT: [0x13], EQ: [0x14], ISZERO: [0x15],
  AND: [0x16], OR: [0x17], XOR: [0x18], NOT: [0x19], BYTE: [0x1a], SHL: [0x1b], SHR: [0x1c],
  KECCAK256: [0x20], ADDRESS: [0x30], CALLER: [0x33], CALLVALUE: [0x34], CALLDATALOAD: [0x35], CALLDATASIZE: [0x36],
  POP: [0x50], MLOAD: [0x51], MSTORE: [0x52], MSTORE8: [0x53], JUMP: [0x56], JUMPI: [0x57],
  PC: [0x58], MSIZE: [0x59], GAS: [0x5a], JUMPDEST: [0x5b], PUSH0: [0x5f],
  PUSH: range(0x60, 0x7f), DUP: range(0x80, 0x8f), SWAP: range(0x90, 0x9f),
};
/** MLOAD, MSTORE, MSTORE8 and KECCAK256. */
const MEMORY = [0x51, 0x52, 0x53, 0x20];
/** The loop needs these from the table: it checks jump destinations itself. */
const REQUIRED = [0x56, 0x57, 0x5b];
/** EIPs whose per-step bookkeeping only ethereumjs's loop does (EOF, code chunk witnesses, access lists of blocks, state gas). */
const FOREIGN_EIPS = [3540, 6800, 7864, 7928, 8037];
const MAX_EXACT_GAS = BigInt(Number.MAX_SAFE_INTEGER);

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

const tables = new WeakMap<OpEntry[], OpTable | null>();

/** The fast loop's view of an opcode table; null when the loop cannot run on it. */
function tableOf(map: OpEntry[], common: Common): OpTable | null {
  let table = tables.get(map);
  if (table !== undefined) return table;
  const inline = new Uint8Array(256);
  const fee = new Float64Array(256);
  const upfront = new Float64Array(256);
  for (let op = 0; op < 256; op++) {
    const info = map[op]?.opcodeInfo;
    if (info === undefined) continue;
    fee[op] = info.fee;
    if (!info.isAsync && !info.isInvalid && INLINE[info.name]?.includes(op)) inline[op] = 1;
    // The memory instructions charge their fee with the memory's growth, after their own checks.
    upfront[op] = MEMORY.includes(op) ? 0 : info.fee;
  }
  const usable = LITTLE_ENDIAN && REQUIRED.every((op) => inline[op] === 1) && FOREIGN_EIPS.every((eip) => !common.isActivatedEIP(eip)) && (common.customCrypto.keccak256 === undefined || common.customCrypto.keccak256 === keccak256);
  table = usable
    ? { inline, fee, upfront, map, memoryGas: Number(common.param('memoryGas')), quadDivisor: Number(common.param('quadCoefficientDivGas')), keccakWordGas: Number(common.param('keccak256WordGas')) }
    : null;
  tables.set(map, table);
  return table;
}

let installed: Promise<void> | undefined;

/** Wrap the interpreter's run (once per process; later calls return the same promise). */
export function installFastLoop(): Promise<void> {
  installed ??= (async () => {
    let proto: { run: Interp['run'] } | undefined;
    // The probe's EVM gets a Common of its own (the default mainnet one): a copy of the caller's
    // would share its parameter tables, which building an EVM rewrites.
    const evm = await createEVM({
      customOpcodes: [{ opcode: 0x0c, opcodeName: 'NODERPC_PROBE', baseFee: 0, logicFunction: (rs) => void (proto = Object.getPrototypeOf(rs.interpreter)) }],
    });
    await evm.runCode({ code: Uint8Array.of(0x0c), gasLimit: 100n });
    if (proto === undefined) throw new Error('fast loop: the interpreter could not be found');
    // KECCAK256 hashes with the WebAssembly keccak (the JS one answers until it is loaded).
    await readyKeccak();
    const ethereumjsRun = proto.run;
    proto.run = function (this: Interp, code: Uint8Array, opts: { pc?: number } = {}): Promise<RunResult> {
      const evm = this._evm;
      const table = evm.DEBUG || this.profilerOpts?.enabled === true || evm.events.listenerCount('step') > 0 || this._runState.gasLeft > MAX_EXACT_GAS ? null : tableOf(evm._opcodeMap, this.common);
      return table === null ? ethereumjsRun.call(this, code, opts) : fastRun(this, code, table, opts.pc);
    };
  })();
  return installed;
}
