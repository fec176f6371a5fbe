/**
 * Mining mode: automine, interval mining (a block every so many milliseconds, or a random delay in
 * a range, hardhat's form) and the order transactions go into blocks. It owns the interval timer;
 * each tick calls `tick` (mining a block from the pool). Snapshots restore the mode (and restart
 * the timer); anvil_reset keeps it, as anvil does.
 */
import { RecordOwner } from '../core/owner.js';

export type BlockOrder = 'fees' | 'fifo';

export interface MiningState {
  auto: boolean;
  intervalMs: number | undefined;
  /** With a range (hardhat's [min, max]), each interval is drawn from [intervalMs, intervalMaxMs]. */
  intervalMaxMs: number | undefined;
  order: BlockOrder;
  /**
   * With automine, a transaction that fails (reverts, runs out of gas) is still mined, and the
   * eth_send* that sent it answers an error carrying its revert data, as the hardhat node does
   * (hardhat's `throwOnTransactionFailures`). Off: the answer is the hash, as anvil gives.
   */
  throwOnFailures: boolean;
}

export class MiningMode extends RecordOwner<MiningState> {
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly tick: () => void) {
    super('miningMode', () => ({ auto: true, intervalMs: undefined, intervalMaxMs: undefined, order: 'fees', throwOnFailures: false }));
  }

  get auto(): boolean {
    return this.s.auto;
  }
  get intervalMs(): number | undefined {
    return this.s.intervalMs;
  }
  get intervalMaxMs(): number | undefined {
    return this.s.intervalMaxMs;
  }
  get order(): BlockOrder {
    return this.s.order;
  }
  get throwOnFailures(): boolean {
    return this.s.throwOnFailures;
  }

  setAuto(on: boolean): void {
    this.s.auto = on;
  }

  setOrder(order: BlockOrder): void {
    this.s.order = order;
  }

  setThrowOnFailures(on: boolean): void {
    this.s.throwOnFailures = on;
  }

  /**
   * Mine a block every `ms` milliseconds (0 turns interval mining off); with `maxMs`, each delay is
   * drawn from [ms, maxMs].
   */
  setInterval(ms: number, maxMs?: number): void {
    this.s.intervalMs = ms > 0 ? ms : undefined;
    this.s.intervalMaxMs = ms > 0 && maxMs !== undefined && maxMs > ms ? maxMs : undefined;
    this.startTimer();
  }

  /** Stop the timer (the node is closing); the mode is kept. */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** anvil_reset keeps the mining mode. */
  override reset(): void {}

  protected override restored(): void {
    this.startTimer();
  }

  private startTimer(): void {
    this.stop();
    const ms = this.s.intervalMs;
    const max = this.s.intervalMaxMs;
    if (ms === undefined) return;
    if (max === undefined) {
      this.timer = setInterval(this.tick, ms);
      this.timer.unref();
      return;
    }
    const next = () => {
      this.timer = setTimeout(() => {
        this.tick();
        next();
      }, ms + Math.floor(Math.random() * (max - ms + 1)));
      this.timer.unref();
    };
    next();
  }
}
