/**
 * The fork point as the local chain holds it: a copy of the fork block's header (number, time,
 * gas limit and use, fees) with the local state root, stored under the upstream block's hash. It
 * is the parent of the first local block (whose parentHash is therefore the upstream's hash) and
 * the block state reads at the fork block use; RPC requests about the block itself are answered
 * by the upstream (see src/rpc/forkHistory.ts).
 */
import { createBlock } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { Address } from '@ethereumjs/util';
import type { StoredBlock } from '../core/types.js';
import type { Fork } from './fork.js';

export function forkPoint(fork: Fork, stateRoot: Uint8Array, common: Common, fallbackBaseFee: bigint): StoredBlock {
  const h = fork.header;
  const block = createBlock(
    {
      header: {
        parentHash: h.parentHash,
        number: h.number,
        timestamp: h.timestamp,
        gasLimit: h.gasLimit,
        gasUsed: h.gasUsed,
        coinbase: new Address(h.miner),
        stateRoot,
        difficulty: 0n,
        mixHash: h.mixHash,
        baseFeePerGas: common.isActivatedEIP(1559) ? (h.baseFeePerGas ?? fallbackBaseFee) : undefined,
        excessBlobGas: common.isActivatedEIP(4844) ? (h.excessBlobGas ?? 0n) : undefined,
        blobGasUsed: common.isActivatedEIP(4844) ? (h.blobGasUsed ?? 0n) : undefined,
        parentBeaconBlockRoot: common.isActivatedEIP(4788) ? (h.parentBeaconBlockRoot ?? new Uint8Array(32)) : undefined,
      },
      withdrawals: common.isActivatedEIP(4895) ? [] : undefined,
    },
    { common, skipConsensusFormatValidation: true },
  );
  return { block, number: h.number, hash: h.hash, hashHex: fork.hashHex, txs: [] };
}
