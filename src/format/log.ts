/** Logs as eth_getLogs and receipts show them. */
import type { MinedTx, RawLog } from '../chain/core/types.js';
import { hex, qty } from './hex.js';

export interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  blockTimestamp: string;
  transactionHash: string;
  transactionIndex: string;
  logIndex: string;
  removed: boolean;
}

export function formatLog(t: MinedTx, log: RawLog, logIndex: number, removed = false): RpcLog {
  const b = t.block;
  return {
    address: hex(log[0]),
    topics: log[1].map(hex),
    data: hex(log[2]),
    blockNumber: qty(b.number),
    blockHash: b.hashHex,
    blockTimestamp: qty(b.block.header.timestamp),
    transactionHash: t.hashHex,
    transactionIndex: qty(t.index),
    logIndex: qty(logIndex),
    removed,
  };
}

/** Every log of a mined transaction. */
export function formatTxLogs(t: MinedTx, removed = false): RpcLog[] {
  return t.receipt.logs.map((log, i) => formatLog(t, log, t.receipt.firstLogIndex + i, removed));
}
