/**
 * Token buckets: the rate limits of the shared mode (calls per second per IP, per WebSocket
 * connection, per API key).
 *
 * A bucket refills continuously at `rate` tokens a second up to `burst`. The burst is a tenth of a
 * second's worth (at least one call): a larger one would let a client get more than its rate over
 * a few seconds (a full 1 s bucket gives a client sending flat out 133/s over 3 s instead of
 * 100/s), while a tenth keeps it within 5% over 2 s. A batch is admitted whole when the bucket
 * holds `min(calls, burst)` tokens and is then charged every call, going into debt when it is
 * larger than the burst: a batch of 100 calls on a 100/s tier is served, and the next second of
 * requests is refused. Over any period the calls served stay within the rate (a client whose
 * batches are about the burst's size gets a few percent less: a full bucket waits for its next
 * batch).
 */

/** Seconds of calls a full bucket holds. */
export const BURST_SECONDS = 0.1;

export class TokenBucket {
  readonly burst: number;
  private tokens: number;
  private at: number;

  constructor(
    /** Calls per second. */
    readonly rate: number,
    now = performance.now(),
  ) {
    this.burst = Math.max(1, rate * BURST_SECONDS);
    this.tokens = this.burst;
    this.at = now;
  }

  private refill(now: number): void {
    if (now > this.at) {
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.at) * this.rate) / 1000);
      this.at = now;
    }
  }

  /** Charge `calls` when they fit (see the file comment); false leaves the bucket as it was. */
  take(calls: number, now = performance.now()): boolean {
    this.refill(now);
    if (this.tokens < Math.min(calls, this.burst)) return false;
    this.tokens -= calls;
    return true;
  }

  /** Whole calls that would be admitted one by one right now. */
  remaining(now = performance.now()): number {
    this.refill(now);
    return Math.max(0, Math.floor(this.tokens));
  }

  /** Seconds until `calls` would fit. */
  waitSeconds(calls: number, now = performance.now()): number {
    this.refill(now);
    return Math.max(0, (Math.min(calls, this.burst) - this.tokens) / this.rate);
  }

  /** Seconds until the bucket is full again. */
  resetSeconds(now = performance.now()): number {
    this.refill(now);
    return (this.burst - this.tokens) / this.rate;
  }

  /** True when the bucket is full: it then behaves like a new one and can be forgotten. */
  full(now = performance.now()): boolean {
    this.refill(now);
    return this.tokens >= this.burst;
  }
}

/** How often buckets of clients gone quiet are dropped. */
const SWEEP_MS = 10_000;

/**
 * Buckets by client (IP address or API key). A bucket that filled up again is dropped on the next
 * sweep, so the map holds only clients seen in the last seconds, whatever the number of addresses
 * a client spreads its requests over.
 */
export class BucketMap {
  private readonly buckets = new Map<string, TokenBucket>();
  private readonly timer: NodeJS.Timeout;

  constructor(readonly rate: number) {
    this.timer = setInterval(() => this.sweep(), SWEEP_MS);
    this.timer.unref();
  }

  get(client: string): TokenBucket {
    let b = this.buckets.get(client);
    if (b === undefined) this.buckets.set(client, (b = new TokenBucket(this.rate)));
    return b;
  }

  get size(): number {
    return this.buckets.size;
  }

  sweep(now = performance.now()): void {
    for (const [client, b] of this.buckets) if (b.full(now)) this.buckets.delete(client);
  }

  close(): void {
    clearInterval(this.timer);
  }
}

/**
 * Seconds a WebSocket connection was far over its limit in a row: more calls refused in a second
 * than its rate allows (it sends at least twice its rate, so -32005 answers do not slow it down).
 * Such a connection is closed (1008) after `closeAfter` seconds; one calmer second starts over.
 */
export class Overrun {
  private second = -1;
  private refused = 0;
  private streak = 0;

  constructor(
    private readonly rate: number,
    private readonly closeAfter: number,
  ) {}

  /** Count `calls` refused now; true when the connection has been far over for `closeAfter` seconds. */
  refuse(calls: number, now = performance.now()): boolean {
    const second = Math.floor(now / 1000);
    if (second !== this.second) {
      this.streak = this.refused > this.rate && second === this.second + 1 ? this.streak + 1 : 0;
      this.second = second;
      this.refused = 0;
    }
    this.refused += calls;
    return this.streak >= this.closeAfter;
  }
}
