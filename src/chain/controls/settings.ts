/**
 * Test controls over time and the next blocks' settings (evm_increaseTime, anvil_setCoinbase,
 * anvil_impersonateAccount, …): one method each, applied in request order, so the rpc layer only
 * delegates. Snapshots and reset restore what these change (see the node's block settings).
 */
import type { Address } from '@ethereumjs/util';
import type { Clock } from './clock.js';
import type { BlockOrder } from '../pool/txpool.js';

export interface MiningSettings {
  auto: boolean;
  intervalMs: number | undefined;
  /** With a range (hardhat's [min, max]), each interval is drawn from [intervalMs, intervalMaxMs]. */
  intervalMaxMs?: number;
  order: BlockOrder;
  /**
   * With automine, a transaction that fails (reverts, runs out of gas) is still mined, and the
   * eth_send* that sent it answers an error carrying its revert data, as the hardhat node does
   * (hardhat's `throwOnTransactionFailures`). Off: the answer is the hash, as anvil gives.
   */
  throwOnFailures?: boolean;
}

/** The parts of the node the controls change. */
export interface Controlled {
  readonly clock: Clock;
  readonly mining: MiningSettings;
  readonly impersonated: Set<string>;
  readonly config: { gasPriceFloor: bigint };
  coinbase: Address;
  blockGasLimit: bigint;
  prevRandao: Uint8Array;
  nextBaseFeeOverride: bigint | undefined;
  autoImpersonate: boolean;
  loggingEnabled: boolean;
  headTimestamp(): bigint;
  inOrder<T>(fn: () => T | Promise<T>): Promise<T>;
}

/** What starts and stops interval mining. */
export interface IntervalMining {
  setIntervalMining(ms: number, maxMs?: number): void;
}

export class Controls {
  constructor(
    private readonly n: Controlled,
    private readonly miner: IntervalMining,
  ) {}

  /** anvil's interval mining: a block every `ms`, automine off (0 turns the interval off). */
  intervalMining(ms: number): Promise<void> {
    return this.n.inOrder(() => {
      if (ms > 0) this.n.mining.auto = false;
      this.miner.setIntervalMining(ms);
    });
  }

  /** Move the clock forward; answers the total offset in seconds. */
  increaseTime(seconds: bigint): Promise<number> {
    return this.n.inOrder(() => {
      this.n.clock.offset += seconds;
      return Number(this.n.clock.offset);
    });
  }

  /** Timestamp of the next block; later than the latest block's. */
  setNextTimestamp(t: bigint): Promise<void> {
    return this.n.inOrder(() => this.n.clock.setNext(t, this.n.headTimestamp()));
  }

  /** Set the clock to `t` (blocks still never go back); answers the seconds it moved forward. */
  setTime(t: bigint): Promise<number> {
    return this.n.inOrder(() => {
      const clock = this.n.clock;
      const moved = t - clock.now();
      clock.offset += moved;
      clock.nextTimestamp = undefined;
      return Number(moved > 0n ? moved : 0n);
    });
  }

  /** Every next block `seconds` after its parent (undefined: back to the clock); answers whether one was set before. */
  setTimestampInterval(seconds: bigint | undefined): Promise<boolean> {
    return this.n.inOrder(() => {
      const had = this.n.clock.interval !== undefined;
      this.n.clock.interval = seconds;
      return had;
    });
  }

  impersonate(a: Address, on: boolean): Promise<void> {
    return this.n.inOrder(() => {
      if (on) this.n.impersonated.add(a.toString());
      else this.n.impersonated.delete(a.toString());
    });
  }

  autoImpersonate(on: boolean): Promise<void> {
    return this.n.inOrder(() => void (this.n.autoImpersonate = on));
  }

  setCoinbase(a: Address): Promise<void> {
    return this.n.inOrder(() => void (this.n.coinbase = a));
  }

  setMinGasPrice(wei: bigint): Promise<void> {
    return this.n.inOrder(() => void (this.n.config.gasPriceFloor = wei));
  }

  setNextBaseFee(wei: bigint): Promise<void> {
    return this.n.inOrder(() => void (this.n.nextBaseFeeOverride = wei));
  }

  setBlockGasLimit(gas: bigint): Promise<void> {
    return this.n.inOrder(() => void (this.n.blockGasLimit = gas));
  }

  setPrevRandao(r: Uint8Array): Promise<void> {
    return this.n.inOrder(() => void (this.n.prevRandao = new Uint8Array(r)));
  }

  setLogging(on: boolean): void {
    this.n.loggingEnabled = on;
  }
}
