/** Builds one block from a list of ready transactions on the live VM. */
import type { Block } from '@ethereumjs/block';
import type { TypedTransaction } from '@ethereumjs/tx';
import { MAX_RLP_BLOCK_SIZE, bytesToHex, type Address } from '@ethereumjs/util';
import { buildBlock, type RunTxResult, type VM } from '@ethereumjs/vm';
import type { ChainError } from '../core/errors.js';
import { asSender } from '../exec/call.js';
import { TxRejected, engineRejection, runChecked, type RunChecks } from '../exec/rejections.js';
import type { MinedTx, StoredBlock } from '../core/types.js';
import { receiptOf } from '../exec/receipt.js';
import { baseFeeAfter } from '../fees/rules.js';
import type { PendingTx } from '../pool/txpool.js';

export interface BlockEnv {
  timestamp: bigint;
  coinbase: Address;
  gasLimit: bigint;
  baseFeePerGas?: bigint;
  prevRandao: Uint8Array;
  /** The parent's hash (on a fork, the first local block's parent is the upstream's fork block). */
  parentHash?: Uint8Array;
}

export interface MineOutcome {
  stored: StoredBlock;
  /** Transactions that could not be included (e.g. they no longer fit the block or failed validation). */
  skipped: Array<{ ptx: PendingTx; error: ChainError }>;
}

/**
 * Run `txs` in order into a new block on top of `parent`. With `requireAll`, a transaction that
 * cannot be included aborts the block (state reverted) and its error is thrown. `admitted`, the
 * first of `txs`, passed the pool's admission on this state just now (RunChecks.admitted).
 */
export async function mineBlock(vm: VM, parent: Block, txs: readonly PendingTx[], env: BlockEnv, requireAll = false, admitted?: PendingTx): Promise<MineOutcome> {
  const builder = await buildBlock(vm, {
    parentBlock: parent,
    withdrawals: vm.common.isActivatedEIP(4895) ? [] : undefined,
    headerData: {
      timestamp: env.timestamp,
      coinbase: env.coinbase,
      gasLimit: env.gasLimit,
      baseFeePerGas: env.baseFeePerGas,
      mixHash: env.prevRandao,
      parentHash: env.parentHash,
    },
    blockOpts: { putBlockIntoBlockchain: false, common: vm.common },
  });
  const included: Array<{ ptx: PendingTx; result: RunTxResult }> = [];
  const skipped: MineOutcome['skipped'] = [];
  const checks: RunChecks = {
    baseFee: baseFeeAfter(parent.header, vm.common.isActivatedEIP(1559), env.baseFeePerGas),
    blobGasPrice: () => parent.header.calcNextBlobGasPrice(vm.common),
  };
  // EIP-7934 (Osaka on): the block's RLP may not exceed MAX_RLP_BLOCK_SIZE; what no longer fits waits.
  let roomLeft = vm.common.isActivatedEIP(7934) ? MAX_RLP_BLOCK_SIZE - BLOCK_FRAME_BYTES : Infinity;
  for (const ptx of txs) {
    try {
      const size = roomLeft === Infinity ? 0 : blockBytesOf(ptx.tx);
      if (size > roomLeft) throw new TxRejected('block-full', `block size limit reached: tx size ${size} bytes, room left in block ${roomLeft} bytes`);
      checks.gasLeft = env.gasLimit - builder.gasUsed;
      checks.admitted = ptx === admitted && included.length === 0 && skipped.length === 0;
      const result = await runChecked(vm, ptx.tx, ptx.from, checks, () => asSender(vm, ptx.from, () => builder.addTransaction(ptx.tx, { skipHardForkValidation: true, allowNoBlobs: true })));
      included.push({ ptx, result });
      roomLeft -= size;
    } catch (error) {
      if (requireAll) {
        await builder.revert();
        throw engineRejection(error);
      }
      skipped.push({ ptx, error: engineRejection(error) });
    }
  }
  const { block } = await builder.build();
  const hash = block.hash();
  const stored: StoredBlock = { block, number: block.header.number, hash, hashHex: bytesToHex(hash), txs: [] };
  let logIndex = 0;
  const baseFee = block.header.baseFeePerGas;
  const blobGasPrice = vm.common.isActivatedEIP(4844) ? block.header.getBlobGasPrice() : undefined;
  included.forEach(({ ptx, result }, index) => {
    const receipt = receiptOf(ptx.tx, result, baseFee, result.receipt.cumulativeBlockGasUsed, logIndex, blobGasPrice);
    logIndex += receipt.logs.length;
    const mined: MinedTx = { tx: ptx.tx, hash: ptx.hash, hashHex: ptx.hashHex, from: ptx.from, index, block: stored, receipt };
    if (ptx.sidecar) mined.sidecar = ptx.sidecar;
    stored.txs.push(mined);
  });
  return { stored, skipped };
}

/**
 * Bytes of a block's RLP besides its transactions, at most: the list header, the header (about
 * 600 bytes with every Prague field), the transaction list's header and the empty ommer and
 * withdrawal lists. Generous, so the limit holds whatever the header carries.
 */
const BLOCK_FRAME_BYTES = 2048;

/** A transaction's bytes in its block's RLP: a legacy one as a list, a typed one as a byte string (up to 4 bytes of header). */
function blockBytesOf(tx: TypedTransaction): number {
  return tx.serialize().length + 4;
}
