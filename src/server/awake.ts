/**
 * Between an answer and the next request of a client that sends one request at a time (a test
 * suite awaits each call), the event loop keeps polling the sockets instead of sleeping, for up to
 * STAY_AWAKE_MS: a pending `setImmediate` makes each turn's poll return at once.
 *
 * A thread asleep in the kernel when the next request comes has to be woken first, and on a
 * virtual machine that adds tens of microseconds to every round trip; a client that sends its
 * next request within a fraction of a millisecond finds this one awake. It polls only while
 * requests come that close: when the time passes with no request, the polling stops until a
 * request again comes within STAY_AWAKE_MS of the answer before it. So a node whose requests come
 * seldom, or that is idle, spends nothing on it, and a busy one never sleeps anyway (a request is
 * in progress: no polling is needed then).
 */

/** How long after an answer the event loop keeps polling for the next request. */
export const STAY_AWAKE_MS = 0.15;

export class StayAwake {
  private inProgress = 0;
  private answeredAt = -Infinity;
  private until = 0;
  private polling = false;
  /** Whether the last request that found none in progress came within the window of the answer before it. */
  private close = true;

  constructor(
    private readonly windowMs = STAY_AWAKE_MS,
    private readonly now: () => number = () => performance.now(),
    private readonly later: (fn: () => void) => void = (fn) => void setImmediate(fn),
  ) {}

  /** A request arrived. */
  readonly started = (): void => {
    if (this.inProgress++ === 0) this.close = this.now() - this.answeredAt < this.windowMs;
  };

  /** A request was answered (or its client went away). */
  readonly ended = (): void => {
    if (this.inProgress > 0) this.inProgress--;
    this.answeredAt = this.now();
    if (this.inProgress > 0 || !this.close) return;
    this.until = this.answeredAt + this.windowMs;
    if (this.polling) return;
    this.polling = true;
    this.later(this.poll);
  };

  /** Whether the event loop is being kept polling. */
  get awake(): boolean {
    return this.polling;
  }

  /** Requests in progress. */
  get busy(): number {
    return this.inProgress;
  }

  private readonly poll = (): void => {
    if (this.inProgress > 0) {
      this.polling = false;
      return;
    }
    if (this.now() < this.until) {
      this.later(this.poll);
      return;
    }
    // The window passed with no request: poll again only once requests come that close.
    this.polling = false;
    this.close = false;
  };
}
