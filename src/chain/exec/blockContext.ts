/** Block contexts built from a block's header: the one a call runs in. */
import { createBlock, type Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { TxRequest } from '../core/types.js';

/** The settable fields of a header, for building a variant of it. */
export function headerFields(h: Block['header']) {
  return {
    parentHash: h.parentHash,
    uncleHash: h.uncleHash,
    coinbase: h.coinbase,
    stateRoot: h.stateRoot,
    transactionsTrie: h.transactionsTrie,
    receiptTrie: h.receiptTrie,
    logsBloom: h.logsBloom,
    difficulty: h.difficulty,
    number: h.number,
    gasLimit: h.gasLimit,
    gasUsed: h.gasUsed,
    timestamp: h.timestamp,
    extraData: h.extraData,
    mixHash: h.mixHash,
    nonce: h.nonce,
    baseFeePerGas: h.baseFeePerGas,
    withdrawalsRoot: h.withdrawalsRoot,
    blobGasUsed: h.blobGasUsed,
    excessBlobGas: h.excessBlobGas,
    parentBeaconBlockRoot: h.parentBeaconBlockRoot,
    requestsHash: h.requestsHash,
  };
}

/**
 * The block context a call executes in: the block's own header, with a zero base fee when the
 * caller offers no gas price (as geth does, so fee-less calls never fail the base-fee check).
 */
export function callBlock(common: Common, block: Block, req: TxRequest): Block {
  const priced = (req.gasPrice ?? req.maxFeePerGas ?? 0n) > 0n;
  if (priced || !common.isActivatedEIP(1559)) return block;
  // Built once per block and rules: calls at the head reuse it until the next block.
  let free = feeless.get(block);
  if (free === undefined || free.rules !== common) {
    free = { rules: common, block: createBlock({ header: { ...headerFields(block.header), baseFeePerGas: 0n } }, { common, skipConsensusFormatValidation: true }) };
    feeless.set(block, free);
  }
  return free.block;
}

/** The zero-base-fee variant of each block calls ran at, and the rules it was built under; dropped with the block. */
const feeless = new WeakMap<Block, { rules: Common; block: Block }>();
