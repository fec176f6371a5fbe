/** The tracing hooks a tracer implements and what they are given (geth's OnEnter / OnOpcode / OnFault / OnLog / OnExit, as driver.ts calls them). */
import type { Message } from '@ethereumjs/evm';
import type { StateManagerInterface } from '@ethereumjs/common';
import type { Account, Address } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import { OP, type FrameType } from './opcodes.js';

/** The part of an ethereumjs step the tracers read (a synthesized STOP provides the same). */
export interface StepView {
  pc: number;
  opcode: { code: number };
  gasLeft: bigint;
  gasRefund: bigint;
  stack: bigint[];
  /** Copied when first read (see the evm-step-memory-on-read patch): read it only when needed. */
  memory: Uint8Array;
  memoryWordCount?: bigint;
  address: Address;
  account?: Account;
  stateManager: StateManagerInterface;
}

/**
 * The byte a step runs: ethereumjs gives an opcode the fork lacks as INVALID (0xfe), geth's struct
 * logs and errors name the byte itself (`PUSH0` before shanghai, `opcode 0xc not defined`), so
 * such a step reads it from its frame's code.
 */
export function opcodeByte(step: StepView, frame: Frame): number {
  const code = step.opcode.code;
  if (code !== OP.INVALID) return code;
  const bytes = frame.msg?.code;
  return bytes instanceof Uint8Array && step.pc < bytes.length ? bytes[step.pc] : code;
}

/** A call frame as geth's OnEnter describes it. */
export interface Frame {
  /** geth depth: 1 for the transaction's own frame (struct logs), OnEnter depth is depth - 1. */
  depth: number;
  type: FrameType;
  /** Lowercase 0x addresses. */
  from: string;
  /** Undefined for a CREATE until the address is known. */
  to: string | undefined;
  input: Uint8Array;
  gas: bigint;
  /** Undefined for STATICCALL (geth passes nil). */
  value: bigint | undefined;
  /** The account whose storage the frame runs against (lowercase 0x); undefined before a CREATE's first step. */
  address: string | undefined;
  /** geth's interpreter returnData: what the last sub-call of this frame returned. */
  returnData: Uint8Array;
  // --- driver bookkeeping ---
  msg: Message | undefined;
  steps: number;
  lastOp: number;
  lastStackLen: number;
  lastGas: bigint;
  lastStep: StepView | undefined;
  /** True while the frame's last event was one of its own opcodes (no sub-frame since). */
  lastWasStep: boolean;
  pending: { step: StepView; cost: bigint; forwarded: bigint } | undefined;
  logCountAtEntry: number;
}

export interface FrameResult {
  output: Uint8Array;
  gasUsed: bigint;
  /** geth's error text, undefined on success. */
  error: string | undefined;
}

export interface LogEvent {
  address: string;
  topics: bigint[];
  data: Uint8Array;
  /** Index of the log in the block (geth's log.Index). */
  index: number;
}

export interface TxStartContext {
  vm: VM;
  stateManager: StateManagerInterface;
}

export interface TxEndContext {
  vm: VM;
  stateManager: StateManagerInterface;
  /** Gas used by the transaction (receipt gas). */
  gasUsed: bigint;
  /** Result of the transaction's own frame. */
  top: FrameResult;
  /** The contract a CREATE transaction made. */
  createdAddress?: Address;
}

/** geth-style tracing hooks; every tracer implements the ones it needs. */
export interface Tracer {
  /** The opcode hook returns a promise that must be awaited (state reads). */
  readonly asyncSteps?: boolean;
  /** The tracer needs nothing from opcodes (not even frame details): skip the step hook. */
  readonly ignoresSteps?: boolean;
  txStart?(ctx: TxStartContext): Promise<void> | void;
  enter?(frame: Frame): void;
  exit?(frame: Frame, result: FrameResult): void;
  opcode?(step: StepView, cost: bigint, frame: Frame): Promise<void> | void;
  /** The frame's last opcode failed before executing (geth reports the error on the opcode). */
  fault?(frame: Frame, error: string): Promise<void> | void;
  log?(log: LogEvent, frame: Frame): void;
  txEnd?(ctx: TxEndContext): Promise<void> | void;
  result(): unknown;
  /** The trace is over, finished or not: release what the tracer holds. */
  close?(): void;
}

export interface DriverTarget {
  from: Address;
  to?: Address;
  value: bigint;
  input: Uint8Array;
  /** The transaction's gas limit (callTracer reports it as the top frame's gas). */
  gasLimit: bigint;
  type: 'CALL' | 'CREATE';
  /** Index in the block of the transaction's first log (callTracer's log `index`); 0 for calls. */
  logIndexOffset?: number;
}

/** The transaction (or call) a tracer is told about, and the block it runs in. */
export interface TraceTx extends DriverTarget {
  gasPrice: bigint;
  /** Block beneficiary (prestateTracer includes it, as geth does). */
  coinbase?: Address;
  /** The block the transaction (or call) runs in; hash, transaction hash and index for mined transactions. */
  blockNumber?: bigint;
  blockHash?: Uint8Array;
  txHash?: Uint8Array;
  txIndex?: number;
}

