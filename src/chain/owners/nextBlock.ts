/**
 * The clock and the next block's settings: block timestamps (the wall clock plus an offset, a
 * one-shot timestamp, a fixed interval), and the coinbase, gas limit, prevrandao and one-shot base
 * fee of the blocks mined next. Test controls change them (evm_increaseTime, anvil_setCoinbase, …);
 * mining and the pending block read them. As anvil's TimeManager plus the block environment.
 */
import { createZeroAddress, type Address } from '@ethereumjs/util';
import { ChainError } from '../core/errors.js';
import { RecordOwner } from '../core/owner.js';

export interface NextBlockState {
  /** Seconds added to the wall clock (evm_increaseTime, evm_setTime). */
  offset: bigint;
  /** Timestamp of the next block only (evm_setNextBlockTimestamp). */
  nextTimestamp: bigint | undefined;
  /** Fixed seconds between blocks (anvil_setBlockTimestampInterval). */
  interval: bigint | undefined;
  coinbase: Address;
  gasLimit: bigint;
  prevRandao: Uint8Array<ArrayBuffer>;
  /** Base fee of the next block only (anvil_setNextBlockBaseFeePerGas). */
  baseFee: bigint | undefined;
}

const wallClock = (): bigint => BigInt(Math.floor(Date.now() / 1000));

export class NextBlock extends RecordOwner<NextBlockState> {
  constructor(
    gasLimit: bigint,
    private readonly wall: () => bigint = wallClock,
  ) {
    super('nextBlock', () => ({
      offset: 0n,
      nextTimestamp: undefined,
      interval: undefined,
      coinbase: createZeroAddress(),
      gasLimit,
      prevRandao: new Uint8Array(32),
      baseFee: undefined,
    }));
  }

  get offset(): bigint {
    return this.s.offset;
  }
  get nextTimestamp(): bigint | undefined {
    return this.s.nextTimestamp;
  }
  get interval(): bigint | undefined {
    return this.s.interval;
  }
  get coinbase(): Address {
    return this.s.coinbase;
  }
  get gasLimit(): bigint {
    return this.s.gasLimit;
  }
  get prevRandao(): Uint8Array<ArrayBuffer> {
    return this.s.prevRandao;
  }
  /** The one-shot base fee of the next block, if set. */
  get baseFee(): bigint | undefined {
    return this.s.baseFee;
  }

  now(): bigint {
    return this.wall() + this.s.offset;
  }

  /** Timestamp for a block on top of a parent with `parentTs`, used up by that block; never goes backwards. */
  next(parentTs: bigint): bigint {
    const t = this.peek(parentTs);
    if (this.s.nextTimestamp !== undefined) {
      this.s.nextTimestamp = undefined;
      // Keep the wall clock in step, so later blocks continue from the chosen time.
      this.s.offset = t - this.wall();
    }
    return t;
  }

  /** The timestamp `next` would give a block mined now on that parent, without using it up (the pending block's). */
  peek(parentTs: bigint): bigint {
    const s = this.s;
    if (s.nextTimestamp !== undefined) return s.nextTimestamp;
    if (s.interval !== undefined) return parentTs + s.interval;
    const now = this.wall() + s.offset;
    return now > parentTs ? now : parentTs + 1n;
  }

  /** Timestamp of the next block; later than `parentTs`, the latest block's. */
  setNext(t: bigint, parentTs: bigint): void {
    if (t <= parentTs) {
      throw new ChainError(`timestamp ${t} is not greater than the latest block's timestamp ${parentTs}`, undefined, -32602);
    }
    this.s.nextTimestamp = t;
  }

  /** Timestamp of the next block, unchecked (blocks mined at a caller's interval). */
  setNextUnchecked(t: bigint): void {
    this.s.nextTimestamp = t;
  }

  /** Move the clock by `seconds`; answers the total offset. */
  increase(seconds: bigint): bigint {
    return (this.s.offset += seconds);
  }

  /** Set the clock to `t` and drop a one-shot timestamp; answers how far it moved (negative: back). */
  setTime(t: bigint): bigint {
    const moved = t - this.now();
    this.s.offset += moved;
    this.s.nextTimestamp = undefined;
    return moved;
  }

  /** Set the offset outright (a loaded state's clock); drops a one-shot timestamp. */
  setOffset(offset: bigint): void {
    this.s.offset = offset;
    this.s.nextTimestamp = undefined;
  }

  /** Every next block `seconds` after its parent (undefined: back to the clock); answers whether one was set before. */
  setInterval(seconds: bigint | undefined): boolean {
    const had = this.s.interval !== undefined;
    this.s.interval = seconds;
    return had;
  }

  setCoinbase(a: Address): void {
    this.s.coinbase = a;
  }

  setGasLimit(gas: bigint): void {
    this.s.gasLimit = gas;
  }

  setPrevRandao(r: Uint8Array): void {
    this.s.prevRandao = new Uint8Array(r);
  }

  setBaseFee(wei: bigint | undefined): void {
    this.s.baseFee = wei;
  }

  /** A block was mined: the one-shot base fee is used up. */
  mined(): void {
    this.s.baseFee = undefined;
  }
}
