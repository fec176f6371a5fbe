/**
 * The fee rules, written once: what a transaction offers and pays per gas, the tip a block
 * producer gets from it, the bump a replacement needs, the base fee of the block after a header,
 * and the prices the node suggests. Everything that prices a transaction (receipts, the pool's
 * replacement and ordering, admission, mining, the pending block, eth_gasPrice) asks here.
 */
import type { TypedTransaction } from '@ethereumjs/tx';
import type { BlockHeader } from '@ethereumjs/block';
import { DEFAULT_TIP } from '../core/config.js';

/** A replacement (same sender and nonce) must offer this many percent more fee cap and tip (geth's price bump). */
export const PRICE_BUMP_PERCENT = 10n;

/** Highest price per gas the sender offers. */
export function feeCap(tx: TypedTransaction): bigint {
  return 'maxFeePerGas' in tx ? tx.maxFeePerGas : (tx as { gasPrice: bigint }).gasPrice;
}

/** Highest tip per gas the sender offers (a legacy transaction offers its whole gas price). */
export function tipCap(tx: TypedTransaction): bigint {
  return 'maxPriorityFeePerGas' in tx ? tx.maxPriorityFeePerGas : feeCap(tx);
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

/** Tip per gas the block producer gets at `baseFee` (what the pool orders by). */
export function effectiveTip(tx: TypedTransaction, baseFee: bigint | undefined): bigint {
  const room = feeCap(tx) - (baseFee ?? 0n);
  const tip = tipCap(tx);
  return room < tip ? room : tip;
}

/** Whether `tx` may replace `old` in the pool: both its fee cap and its tip at least PRICE_BUMP_PERCENT higher. */
export function outbids(tx: TypedTransaction, old: TypedTransaction): boolean {
  const bump = (v: bigint) => v + (v * PRICE_BUMP_PERCENT) / 100n;
  return feeCap(tx) >= bump(feeCap(old)) && tipCap(tx) >= bump(tipCap(old));
}

/**
 * Base fee of the block after `parent` (undefined before London), unless `override` sets it. The
 * first London block (its parent has none) starts at `initial`, as geth's does (EIP-1559's
 * INITIAL_BASE_FEE, 1 gwei).
 */
export function baseFeeAfter(parent: BlockHeader, london: boolean, override: bigint | undefined, initial = INITIAL_BASE_FEE): bigint | undefined {
  if (!london) return undefined;
  return override ?? (parent.baseFeePerGas === undefined ? initial : parent.calcNextBaseFee());
}

/** EIP-1559's base fee of the first London block. */
export const INITIAL_BASE_FEE = 1_000_000_000n;

/** eth_gasPrice: the next base fee plus the suggested tip, never below `floor`. */
export function suggestedGasPrice(nextBaseFee: bigint, floor: bigint): bigint {
  const p = nextBaseFee + DEFAULT_TIP;
  return p > floor ? p : floor;
}

/** The fee cap a filled request offers: twice the next base fee plus its tip, never below `floor`. */
export function suggestedFeeCap(nextBaseFee: bigint, tip: bigint, floor: bigint): bigint {
  const cap = nextBaseFee * 2n + tip;
  return cap > floor ? cap : floor;
}

/** The tip the node suggests (eth_maxPriorityFeePerGas) and fills requests with. */
export const SUGGESTED_TIP = DEFAULT_TIP;
