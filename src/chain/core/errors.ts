import type { SourceStack } from './sources.js';

/** Errors raised by the chain. They carry no JSON; the RPC layer maps them to -32000 (or `code`). */
export class ChainError extends Error {
  constructor(
    message: string,
    /** Raw bytes attached to the error (revert data). */
    readonly data?: Uint8Array,
    /** JSON-RPC code when it is not the generic server error. */
    readonly code?: number,
  ) {
    super(message);
  }
}

/** An execution that failed in the EVM (a revert, out of gas, an invalid opcode, …). */
export class ExecutionError extends ChainError {
  /** The Solidity stack of the failure, when the failing code has source (see exec/explain.ts). */
  sourceStack: SourceStack | undefined;
}

/** Execution reverted: message is `execution reverted[: reason]`, data the raw revert bytes. */
export class RevertError extends ExecutionError {}

/** A transaction that was mined but failed, reported to its sender (MiningSettings.throwOnFailures); data: its revert bytes. */
export class TxFailedError extends ChainError {}
