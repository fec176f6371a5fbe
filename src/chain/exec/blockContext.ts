/** Block contexts built from a block's header: the one a call runs in, whether a call is priced, block overrides. */
import { createBlock, type Block, type HeaderData } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { BlockOverrides, TxRequest } from '../core/types.js';

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
 * Whether a call pays the block's base fee, geth's rule for eth_call, eth_estimateGas,
 * eth_createAccessList and debug_traceCall: only a call that offers a gas price above zero
 * (`gasPrice`, else `maxFeePerGas`) does; any other runs at a zero base fee, so fee-less calls
 * never fail the base-fee check (and a block override's base fee does not apply to them). Only
 * such free calls may take the lean path (lean.ts).
 */
export function paysBaseFee(req: TxRequest): boolean {
  return (req.gasPrice ?? req.maxFeePerGas ?? 0n) > 0n;
}

/**
 * Whether a call names its price, eth_simulateV1's rule: it sets `gasPrice` or `maxFeePerGas`
 * (zero included). A call that names none gets `unpricedFees`.
 */
export function namesPrice(req: TxRequest): boolean {
  return req.gasPrice !== undefined || req.maxFeePerGas !== undefined;
}

/**
 * The fees eth_simulateV1 gives a call that names no price: none, as an EIP-1559 transaction (the
 * type geth's simulated transactions take, which their hashes and receipts root show). Validated,
 * such a call pays less than a non-zero base fee (-38012), as in geth.
 */
export function unpricedFees(): Partial<TxRequest> {
  return { maxFeePerGas: 0n, maxPriorityFeePerGas: 0n };
}

/** The block context a call executes in: the block's own header, with a zero base fee unless the call pays it (`paysBaseFee`). */
export function callBlock(common: Common, block: Block, req: TxRequest): Block {
  if (paysBaseFee(req) || !common.isActivatedEIP(1559)) return block;
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

/**
 * Header fields with a caller's block overrides applied: number, difficulty, time, gas limit, fee
 * recipient, prevrandao, and the base fee where the header has one (the rules know base fees).
 * Withdrawals belong to the body: who builds the block takes them (eth_simulateV1).
 */
export function withBlockOverrides(fields: HeaderData, o: BlockOverrides): HeaderData {
  const out = { ...fields };
  if (o.number !== undefined) out.number = o.number;
  if (o.difficulty !== undefined) out.difficulty = o.difficulty;
  if (o.time !== undefined) out.timestamp = o.time;
  if (o.gasLimit !== undefined) out.gasLimit = o.gasLimit;
  if (o.feeRecipient !== undefined) out.coinbase = o.feeRecipient;
  if (o.prevRandao !== undefined) out.mixHash = o.prevRandao;
  if (o.baseFeePerGas !== undefined && fields.baseFeePerGas !== undefined) out.baseFeePerGas = o.baseFeePerGas;
  return out;
}

/** `block` with the overrides applied to its header (a context to run calls in; it has no body). */
export function overriddenBlock(block: Block, o: BlockOverrides): Block {
  return createBlock({ header: withBlockOverrides(headerFields(block.header), o) }, { common: block.common, skipConsensusFormatValidation: true });
}

/**
 * `block` with its blob base fee set to `fee` (eth_simulateV1's `blobBaseFee` override, geth's
 * BlockContext.BlobBaseFee): what its calls pay per blob gas and what BLOBBASEFEE reads, both of
 * which ethereumjs takes from `header.getBlobGasPrice()`.
 */
export function withBlobBaseFee(block: Block, fee: bigint): Block {
  const b = createBlock({ header: headerFields(block.header) }, { common: block.common, skipConsensusFormatValidation: true, setHardfork: false, freeze: false });
  b.header.getBlobGasPrice = () => fee;
  return b;
}
