/**
 * Blocks as eth_getBlockBy* and newHeads show them. No `totalDifficulty`: geth and the execution-apis
 * spec dropped it (anvil and the hardhat node still give it).
 */
import type { BlockHeader } from '@ethereumjs/block';
import type { StoredBlock } from '../chain/core/types.js';
import { addr, hex, jsonOnce, qty, type RawJson } from './hex.js';
import { formatMinedTx } from './tx.js';

const headerCache = new WeakMap<StoredBlock, Record<string, unknown>>();

/** Header fields in geth's order (newHeads notifications use exactly this). */
export function formatHeader(b: StoredBlock): Record<string, unknown> {
  let out = headerCache.get(b);
  if (out) return out;
  const h: BlockHeader = b.block.header;
  out = {
    hash: b.hashHex,
    parentHash: hex(h.parentHash),
    sha3Uncles: hex(h.uncleHash),
    miner: addr(h.coinbase),
    stateRoot: hex(h.stateRoot),
    transactionsRoot: hex(h.transactionsTrie),
    receiptsRoot: hex(h.receiptTrie),
    logsBloom: hex(h.logsBloom),
    difficulty: qty(h.difficulty),
    number: qty(h.number),
    gasLimit: qty(h.gasLimit),
    gasUsed: qty(h.gasUsed),
    timestamp: qty(h.timestamp),
    extraData: hex(h.extraData),
    mixHash: hex(h.mixHash),
    nonce: hex(h.nonce),
  };
  if (h.baseFeePerGas !== undefined) out.baseFeePerGas = qty(h.baseFeePerGas);
  if (h.withdrawalsRoot !== undefined) out.withdrawalsRoot = hex(h.withdrawalsRoot);
  if (h.blobGasUsed !== undefined) out.blobGasUsed = qty(h.blobGasUsed);
  if (h.excessBlobGas !== undefined) out.excessBlobGas = qty(h.excessBlobGas);
  if (h.parentBeaconBlockRoot !== undefined) out.parentBeaconBlockRoot = hex(h.parentBeaconBlockRoot);
  if (h.requestsHash !== undefined) out.requestsHash = hex(h.requestsHash);
  headerCache.set(b, out);
  return out;
}

const sizeCache = new WeakMap<StoredBlock, number>();

export function formatBlock(b: StoredBlock, fullTxs: boolean): object {
  let size = sizeCache.get(b);
  if (size === undefined) {
    size = b.block.serialize().length;
    sizeCache.set(b, size);
  }
  const out: Record<string, unknown> = {
    ...formatHeader(b),
    size: qty(size),
    uncles: [],
    transactions: fullTxs ? b.txs.map(formatMinedTx) : b.txs.map((t) => t.hashHex),
  };
  if (b.block.withdrawals !== undefined) {
    out.withdrawals = b.block.withdrawals.map((w) => ({
      index: qty(w.index),
      validatorIndex: qty(w.validatorIndex),
      address: addr(w.address),
      amount: qty(w.amount),
    }));
  }
  return out;
}

const lightJson = jsonOnce((b: StoredBlock) => formatBlock(b, false));
const fullJson = jsonOnce((b: StoredBlock) => formatBlock(b, true));

/** eth_getBlockBy*'s answer, serialized once per block and form (see jsonOnce). */
export function blockJson(b: StoredBlock, fullTxs: boolean): RawJson {
  return fullTxs ? fullJson(b) : lightJson(b);
}

/**
 * The pending block as eth_getBlockByNumber("pending") answers it: geth's shape, with `hash`,
 * `nonce` and `miner` null (the block is not sealed); its transactions name the block they would
 * be mined in.
 */
export function pendingBlockJson(b: StoredBlock, fullTxs: boolean): object {
  return { ...formatBlock(b, fullTxs), hash: null, nonce: null, miner: null };
}
