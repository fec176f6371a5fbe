/** Block timestamps: wall clock plus an offset, one-shot overrides and fixed intervals. */
import { ChainError } from '../core/errors.js';

export class Clock {
  /** Seconds added to the wall clock (evm_increaseTime, evm_setTime). */
  offset = 0n;
  /** Timestamp of the next block only (evm_setNextBlockTimestamp). */
  nextTimestamp: bigint | undefined;
  /** Fixed seconds between blocks (anvil_setBlockTimestampInterval). */
  interval: bigint | undefined;

  constructor(private readonly wall: () => bigint = () => BigInt(Math.floor(Date.now() / 1000))) {}

  now(): bigint {
    return this.wall() + this.offset;
  }

  /** Timestamp for a block on top of a parent with `parentTs`; never goes backwards. */
  next(parentTs: bigint): bigint {
    const t = this.peek(parentTs);
    if (this.nextTimestamp !== undefined) {
      this.nextTimestamp = undefined;
      // Keep the wall clock in step, so later blocks continue from the chosen time.
      this.offset = t - this.wall();
    }
    return t;
  }

  /** The timestamp `next` would give a block mined now on that parent, without using it up (the pending block's). */
  peek(parentTs: bigint): bigint {
    if (this.nextTimestamp !== undefined) return this.nextTimestamp;
    if (this.interval !== undefined) return parentTs + this.interval;
    const now = this.now();
    return now > parentTs ? now : parentTs + 1n;
  }

  setNext(t: bigint, parentTs: bigint): void {
    if (t <= parentTs) {
      throw new ChainError(`timestamp ${t} is not greater than the latest block's timestamp ${parentTs}`, undefined, -32602);
    }
    this.nextTimestamp = t;
  }

  clone(): Clock {
    const c = new Clock(this.wall);
    c.offset = this.offset;
    c.nextTimestamp = this.nextTimestamp;
    c.interval = this.interval;
    return c;
  }
}
