/** A mined or simulated transaction's receipt (its price from the fee rules, fees/rules.ts). */
import type { TypedTransaction } from '@ethereumjs/tx';
import type { RunTxResult } from '@ethereumjs/vm';
import type { Receipt } from '../core/types.js';
import { effectiveGasPrice } from '../fees/rules.js';

/** The node's receipt of a transaction's run (mined blocks, simulated ones). */
export function receiptOf(tx: TypedTransaction, result: RunTxResult, baseFee: bigint | undefined, cumulativeGasUsed: bigint, firstLogIndex: number, blobGasPrice?: bigint): Receipt {
  const r = result.receipt as typeof result.receipt & { status?: 0 | 1; stateRoot?: Uint8Array };
  return {
    status: r.status ?? (result.execResult.exceptionError === undefined ? 1 : 0),
    ...(r.stateRoot !== undefined ? { root: r.stateRoot } : {}),
    gasUsed: result.totalGasSpent,
    cumulativeGasUsed,
    effectiveGasPrice: effectiveGasPrice(tx, baseFee),
    contractAddress: result.createdAddress,
    logs: r.logs,
    firstLogIndex,
    bloom: r.bitvector,
    returnValue: result.execResult.returnValue,
    error: result.execResult.exceptionError?.error,
    blobGasUsed: result.blobGasUsed,
    blobGasPrice: result.blobGasUsed !== undefined ? blobGasPrice : undefined,
  };
}
