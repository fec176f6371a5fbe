/** A mined or simulated transaction's receipt, and the price rules it records. */
import type { TypedTransaction } from '@ethereumjs/tx';
import type { RunTxResult } from '@ethereumjs/vm';
import type { Receipt } from '../core/types.js';

/** Highest price per gas the sender offers. */
export function feeCap(tx: TypedTransaction): bigint {
  return 'maxFeePerGas' in tx ? tx.maxFeePerGas : (tx as { gasPrice: bigint }).gasPrice;
}

/** Price per gas actually paid at `baseFee`. */
export function effectiveGasPrice(tx: TypedTransaction, baseFee: bigint | undefined): bigint {
  if ('maxFeePerGas' in tx) {
    const base = baseFee ?? 0n;
    const withTip = base + tx.maxPriorityFeePerGas;
    return withTip < tx.maxFeePerGas ? withTip : tx.maxFeePerGas;
  }
  return (tx as { gasPrice: bigint }).gasPrice;
}

/** The node's receipt of a transaction's run (mined blocks, simulated ones). */
export function receiptOf(tx: TypedTransaction, result: RunTxResult, baseFee: bigint | undefined, cumulativeGasUsed: bigint, firstLogIndex: number, blobGasPrice?: bigint): Receipt {
  const r = result.receipt as typeof result.receipt & { status: 0 | 1 };
  return {
    status: r.status,
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
