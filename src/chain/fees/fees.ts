/**
 * Fees: the gas price floor (--gas-price, anvil_setMinGasPrice), and the node's answers about
 * prices — the next block's base fee, eth_gasPrice, the suggested tip, the blob base fee and the
 * fee history — all from the rules in rules.ts. As anvil's FeeManager.
 */
import type { Common } from '@ethereumjs/common';
import { ChainError } from '../core/errors.js';
import { RecordOwner } from '../core/owner.js';
import type { StoredBlock } from '../core/types.js';
import { feeHistory, type FeeHistory, type FeeStore } from './history.js';
import { SUGGESTED_TIP, baseFeeAfter, suggestedFeeCap, suggestedGasPrice } from './rules.js';

export interface FeesState {
  /** No price suggested or filled in goes below it (anvil's min gas price). */
  floor: bigint;
}

/** What fees are computed from: the chain's rules, its blocks, and a one-shot base fee for the next block. */
export interface FeeChain {
  readonly common: Common;
  readonly store: FeeStore;
}

export interface BaseFeeOverride {
  readonly baseFee: bigint | undefined;
}

export class Fees extends RecordOwner<FeesState> {
  constructor(
    floor: bigint,
    private readonly chain: FeeChain,
    private readonly next: BaseFeeOverride,
  ) {
    super('fees', () => ({ floor }));
  }

  get floor(): bigint {
    return this.s.floor;
  }

  setFloor(wei: bigint): void {
    this.s.floor = wei;
  }

  /** Base fee of the block mined next on the head (undefined before London). */
  pendingBaseFee(): bigint | undefined {
    return baseFeeAfter(this.chain.store.head.block.header, this.chain.common.isActivatedEIP(1559), this.next.baseFee);
  }

  /** Base fee of the next block (0 before London). */
  nextBaseFee(): bigint {
    return this.pendingBaseFee() ?? 0n;
  }

  /** eth_gasPrice: next base fee plus the suggested tip, never below the floor. */
  gasPrice(): bigint {
    return suggestedGasPrice(this.nextBaseFee(), this.s.floor);
  }

  maxPriorityFeePerGas(): bigint {
    return SUGGESTED_TIP;
  }

  /** The fee cap a request filled here offers with tip `tip`. */
  feeCapFor(tip: bigint): bigint {
    return suggestedFeeCap(this.nextBaseFee(), tip, this.s.floor);
  }

  blobBaseFee(): bigint {
    const common = this.chain.common;
    if (!common.isActivatedEIP(4844)) throw new ChainError('blob fees are not active before cancun');
    return this.chain.store.head.block.header.calcNextBlobGasPrice(common);
  }

  feeHistory(count: number, newest: StoredBlock, percentiles: number[] | undefined): FeeHistory {
    return feeHistory(this.chain, count, newest, percentiles);
  }
}
