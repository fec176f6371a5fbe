/**
 * Test controls over time and the next blocks' settings (evm_increaseTime, anvil_setCoinbase,
 * anvil_impersonateAccount, …): one method each, applied in request order, so the rpc layer only
 * delegates. Each writes through the owner of what it changes (owners/, fees/); snapshots and
 * reset restore those owners.
 */
import type { Address } from '@ethereumjs/util';
import type { Fees } from '../fees/fees.js';
import type { Accounts } from '../owners/accounts.js';
import type { MiningMode } from '../owners/miningMode.js';
import type { NextBlock } from '../owners/nextBlock.js';

/** The owners the controls change, and the order they apply in. */
export interface Controlled {
  readonly clock: NextBlock;
  readonly fees: Fees;
  readonly wallet: Accounts;
  readonly mining: MiningMode;
  headTimestamp(): bigint;
  inOrder<T>(fn: () => T | Promise<T>): Promise<T>;
}

/** What starts and stops interval mining. */
export interface IntervalMining {
  setIntervalMining(ms: number, maxMs?: number): void;
}

export class Controls {
  /** Request and block logging (anvil_setLoggingEnabled); the CLI's log honours it. */
  private logging = true;

  constructor(
    private readonly n: Controlled,
    private readonly miner: IntervalMining,
  ) {}

  get loggingEnabled(): boolean {
    return this.logging;
  }

  /** anvil's interval mining: a block every `ms`, automine off (0 turns the interval off). */
  intervalMining(ms: number): Promise<void> {
    return this.n.inOrder(() => {
      if (ms > 0) this.n.mining.setAuto(false);
      this.miner.setIntervalMining(ms);
    });
  }

  /** Move the clock forward; answers the total offset in seconds. */
  increaseTime(seconds: bigint): Promise<number> {
    return this.n.inOrder(() => Number(this.n.clock.increase(seconds)));
  }

  /** Timestamp of the next block; later than the latest block's. */
  setNextTimestamp(t: bigint): Promise<void> {
    return this.n.inOrder(() => this.n.clock.setNext(t, this.n.headTimestamp()));
  }

  /** Set the clock to `t` (blocks still never go back); answers the seconds it moved forward. */
  setTime(t: bigint): Promise<number> {
    return this.n.inOrder(() => {
      const moved = this.n.clock.setTime(t);
      return Number(moved > 0n ? moved : 0n);
    });
  }

  /** Every next block `seconds` after its parent (undefined: back to the clock); answers whether one was set before. */
  setTimestampInterval(seconds: bigint | undefined): Promise<boolean> {
    return this.n.inOrder(() => this.n.clock.setInterval(seconds));
  }

  impersonate(a: Address, on: boolean): Promise<void> {
    return this.n.inOrder(() => this.n.wallet.impersonate(a, on));
  }

  autoImpersonate(on: boolean): Promise<void> {
    return this.n.inOrder(() => this.n.wallet.setAutoImpersonate(on));
  }

  setCoinbase(a: Address): Promise<void> {
    return this.n.inOrder(() => this.n.clock.setCoinbase(a));
  }

  setMinGasPrice(wei: bigint): Promise<void> {
    return this.n.inOrder(() => this.n.fees.setFloor(wei));
  }

  setNextBaseFee(wei: bigint): Promise<void> {
    return this.n.inOrder(() => this.n.clock.setBaseFee(wei));
  }

  setBlockGasLimit(gas: bigint): Promise<void> {
    return this.n.inOrder(() => this.n.clock.setGasLimit(gas));
  }

  setPrevRandao(r: Uint8Array): Promise<void> {
    return this.n.inOrder(() => this.n.clock.setPrevRandao(r));
  }

  setLogging(on: boolean): void {
    this.logging = on;
  }
}
