/** eth_feeHistory over stored blocks: base fees, gas used ratios and reward percentiles. */
import type { StoredBlock } from '../core/types.js';

export interface FeeHistory {
  oldestBlock: bigint;
  baseFeePerGas: bigint[];
  gasUsedRatio: number[];
  baseFeePerBlobGas: bigint[];
  blobGasUsedRatio: number[];
  reward?: bigint[][];
}

/** The blocks fee history reads. */
export interface FeeStore {
  readonly head: StoredBlock;
  /** Number of the first block held (the fork block on a forked chain). */
  readonly base: bigint;
  range(first: bigint, last: bigint): Iterable<StoredBlock>;
}

interface FeeSource {
  readonly store: FeeStore;
  readonly common: { isActivatedEIP(eip: number): boolean; param(name: string): bigint };
}

/** Fee history of the `count` blocks ending at `newest`: a stored block, or the pending block (head + 1). */
export function feeHistory(node: FeeSource, count: number, newest: StoredBlock, percentiles: number[] | undefined): FeeHistory {
  // No blocks asked for: nothing, from block 0 (geth and anvil answer the same).
  if (count === 0) return { oldestBlock: 0n, baseFeePerGas: [], gasUsedRatio: [], baseFeePerBlobGas: [], blobGasUsedRatio: [], ...(percentiles ? { reward: [] } : {}) };
  const last = newest.number;
  // A forked chain holds blocks from its fork block on.
  const held = last - node.store.base + 1n;
  const n = BigInt(count) > held ? held : BigInt(count);
  const first = last - n + 1n;
  const out: FeeHistory = { oldestBlock: first, baseFeePerGas: [], gasUsedRatio: [], baseFeePerBlobGas: [], blobGasUsedRatio: [] };
  if (percentiles) out.reward = [];
  const blobs = node.common.isActivatedEIP(4844);
  const maxBlobGas = blobs ? maxBlobGasPerBlock(node) : 0n;
  // The pending block (number head + 1) is not stored: it closes the range itself.
  const unstored = last > node.store.head.number;
  const blocks: Iterable<StoredBlock> = unstored ? [...node.store.range(first, last - 1n), newest] : node.store.range(first, last);
  for (const b of blocks) {
    const h = b.block.header;
    out.baseFeePerGas.push(h.baseFeePerGas ?? 0n);
    out.gasUsedRatio.push(h.gasLimit === 0n ? 0 : Number(h.gasUsed) / Number(h.gasLimit));
    // A block from before cancun (an imported chain's) has no blob fee.
    if (blobs && h.excessBlobGas !== undefined) {
      out.baseFeePerBlobGas.push(h.getBlobGasPrice());
      out.blobGasUsedRatio.push(maxBlobGas === 0n ? 0 : Number(h.blobGasUsed ?? 0n) / Number(maxBlobGas));
    } else {
      out.baseFeePerBlobGas.push(0n);
      out.blobGasUsedRatio.push(0);
    }
    if (percentiles) out.reward!.push(rewards(b, percentiles));
  }
  if (count > 0) {
    const h = newest.block.header;
    out.baseFeePerGas.push(h.baseFeePerGas !== undefined ? h.calcNextBaseFee() : 0n);
    out.baseFeePerBlobGas.push(blobs && h.excessBlobGas !== undefined ? h.calcNextBlobGasPrice(node.common as never) : 0n);
  }
  return out;
}

/** Effective tips at the given gas-weighted percentiles, as geth computes them. */
function rewards(b: StoredBlock, percentiles: number[]): bigint[] {
  if (b.txs.length === 0) return percentiles.map(() => 0n);
  const baseFee = b.block.header.baseFeePerGas ?? 0n;
  const sorted = b.txs
    .map((t) => ({ tip: t.receipt.effectiveGasPrice - baseFee, gas: t.receipt.gasUsed }))
    .sort((x, y) => (x.tip < y.tip ? -1 : x.tip > y.tip ? 1 : 0));
  const total = Number(b.block.header.gasUsed);
  const out: bigint[] = [];
  let i = 0;
  let sum = Number(sorted[0].gas);
  for (const p of percentiles) {
    const threshold = (total * p) / 100;
    while (sum < threshold && i < sorted.length - 1) {
      i++;
      sum += Number(sorted[i].gas);
    }
    out.push(sorted[i].tip);
  }
  return out;
}

function maxBlobGasPerBlock(node: FeeSource): bigint {
  try {
    return node.common.param('maxBlobGasPerBlock');
  } catch {
    return 786432n;
  }
}
