/**
 * A wall-clock limit on one execution (an eth_call, an estimate): the fast loop (run.ts) checks it
 * as it runs, lets other work of the event loop run between slices of execution, and once the
 * deadline has passed halts every frame still running, as if it had run out of gas, so the call
 * unwinds through ethereumjs's own bookkeeping (journal, checkpoints) and nothing is left half done.
 */

/** How long execution runs before it lets the event loop serve others, in milliseconds. */
const SLICE_MS = 10;

export class RunLimit {
  /** Set once the deadline has passed: every frame halts at its next check. */
  expired = false;
  /** When execution next lets the event loop run. */
  nextYield: number;

  constructor(readonly deadline: number) {
    this.nextYield = performance.now() + SLICE_MS;
  }

  /**
   * Called by the loop every few thousand steps: true when it must halt; otherwise, when a slice
   * is used up, a promise to await before going on (other requests are served meanwhile).
   */
  check(): boolean | Promise<void> {
    if (this.expired) return true;
    const now = performance.now();
    if (now >= this.deadline) {
      this.expired = true;
      return true;
    }
    if (now < this.nextYield) return false;
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        this.nextYield = performance.now() + SLICE_MS;
        resolve();
      }),
    );
  }
}

const limits = new WeakMap<object, RunLimit>();

/** The limit set on `evm` (undefined: run to the end, never yield). */
export function limitOf(evm: object): RunLimit | undefined {
  return limits.get(evm);
}

/**
 * Run `fn` with executions on `evm` limited to `timeoutMs`; `expired` says whether the deadline
 * cut them short (their results are then out-of-gas halts, to be reported as a timeout).
 */
export async function withRunLimit<T>(evm: object, timeoutMs: number, fn: () => Promise<T>): Promise<{ value?: T; error?: unknown; expired: boolean }> {
  const limit = new RunLimit(performance.now() + timeoutMs);
  const outer = limits.get(evm);
  limits.set(evm, limit);
  try {
    const value = await fn();
    return { value, expired: limit.expired };
  } catch (error) {
    return { error, expired: limit.expired };
  } finally {
    if (outer === undefined) limits.delete(evm);
    else limits.set(evm, outer);
  }
}
