/** Transaction receipts (eth_getTransactionReceipt, eth_getBlockReceipts). */
import type { MinedTx } from '../chain/core/types.js';
import { addr, hex, jsonOnce, qty } from './hex.js';
import { formatTxLogs } from './log.js';

const cache = new WeakMap<MinedTx, object>();

export function formatReceipt(t: MinedTx): object {
  let out = cache.get(t);
  if (out) return out;
  const r = t.receipt;
  const receipt: Record<string, unknown> = {
    type: qty(t.tx.type),
    ...(r.root !== undefined ? { root: hex(r.root) } : { status: qty(r.status) }),
    cumulativeGasUsed: qty(r.cumulativeGasUsed),
    logs: formatTxLogs(t),
    logsBloom: hex(r.bloom),
    transactionHash: t.hashHex,
    transactionIndex: qty(t.index),
    blockHash: t.block.hashHex,
    blockNumber: qty(t.block.number),
    gasUsed: qty(r.gasUsed),
    effectiveGasPrice: qty(r.effectiveGasPrice),
    from: addr(t.from),
    to: t.tx.to ? addr(t.tx.to) : null,
    contractAddress: r.contractAddress ? addr(r.contractAddress) : null,
  };
  if (r.blobGasUsed !== undefined) receipt.blobGasUsed = qty(r.blobGasUsed);
  if (r.blobGasPrice !== undefined) receipt.blobGasPrice = qty(r.blobGasPrice);
  out = receipt;
  cache.set(t, out);
  return out;
}

/** eth_getTransactionReceipt's answer, serialized once (see jsonOnce). */
export const receiptJson = jsonOnce(formatReceipt);
