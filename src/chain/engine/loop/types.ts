/**
 * The parts of ethereumjs's interpreter the fast loop works on. They are not exported by
 * @ethereumjs/evm; their shape is that of the pinned version (package.json pins it exactly, the
 * build refuses any other), and the state tests check the loop against it.
 */
import type { Common } from '@ethereumjs/common';
import type { EVMError } from '@ethereumjs/evm';
import type { Address } from '@ethereumjs/util';

export interface OpcodeInfo {
  readonly name: string;
  readonly fee: number;
  readonly feeBigInt: bigint;
  readonly isAsync: boolean;
  readonly dynamicGas: boolean;
  readonly isInvalid: boolean;
}

export interface OpEntry {
  readonly opcodeInfo: OpcodeInfo;
  readonly opHandler: (rs: RunState, common: Common) => void | Promise<void>;
  readonly gasHandler: (rs: RunState, gas: bigint, common: Common) => bigint | Promise<bigint>;
}

export interface RunState {
  programCounter: number;
  opCode: number;
  code: Uint8Array;
  gasLeft: bigint;
  memoryWordCount: bigint;
  highestMemCost: bigint;
  memory: { _store: Uint8Array };
  stack: { _store: bigint[]; _len: number; _maxHeight: number };
}

export interface Env {
  readonly address: Address;
  readonly caller: Address;
  readonly callValue: bigint;
  readonly callData: Uint8Array;
  readonly chargeCodeAccesses?: boolean;
}

/**
 * Set on the EVM by internals.ts's `watchSstores` while an estimate's run is watched: the frames
 * the fast loop ran, and the least gas any of them had left at an SSTORE (before its charge: what
 * EIP-2200's stipend check reads).
 */
export interface SstoreWatch {
  frames: number;
  leastLeft: number;
}

export interface EvmInternals {
  readonly sstoreWatch?: SstoreWatch;
  readonly DEBUG: boolean;
  readonly events: { listenerCount(event: string): number };
  readonly _opcodeMap: OpEntry[];
}

export interface Interp {
  readonly _runState: RunState;
  readonly _env: Env;
  readonly _evm: EvmInternals;
  readonly common: Common;
  readonly profilerOpts?: { enabled?: boolean };
  useGas(amount: bigint, context?: OpcodeInfo): void;
  run(code: Uint8Array, opts?: { pc?: number }): Promise<RunResult>;
}

export interface RunResult {
  runState: RunState;
  exceptionError?: EVMError;
}

/** One EVM's opcode table as the fast loop uses it. */
export interface OpTable {
  /** 1 where the loop does the instruction itself. */
  readonly inline: Uint8Array;
  /** Static gas of each opcode. */
  readonly fee: Float64Array;
  /** The static gas an inlined instruction charges before anything else (0 for the memory instructions). */
  readonly upfront: Float64Array;
  readonly map: OpEntry[];
  readonly memoryGas: number;
  readonly quadDivisor: number;
  readonly keccakWordGas: number;
}
