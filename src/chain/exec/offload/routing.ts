/**
 * Where an eth_call runs: on the main thread when it is the only request in progress, on a worker
 * when others are, or when the same code has run long before. A single caller (a test suite awaits
 * each call) then pays no thread hop, and a crowd still spreads over the cores.
 *
 * "Others in progress" is read after one turn of the event loop: a call that arrived takes a
 * `setImmediate`, which runs after the loop has polled the sockets, so requests that were already
 * waiting have entered by then. In a burst every call but none sees the others; alone, the turn
 * costs a few microseconds. Once a crowd is seen, calls go to the workers without that turn for
 * the next 50 ms after the last call that found others in progress.
 */

/** A call that took this long on the main thread is sent to a worker the next time (same target and selector). */
export const LONG_CALL_MS = 8;
/** After calls were seen together, every call goes to a worker for this long without looking again. */
export const CROWD_MS = 50;
/** How many targets' durations are remembered (the oldest is forgotten first). */
const REMEMBERED = 1024;

export class CallRouting {
  private active = 0;
  /** Until when calls go to a worker without looking (a crowd was seen). */
  private crowdUntil = 0;
  private readonly long = new Map<string, true>();

  /** A call arrived: whether it should go to a worker (looked at after one turn of the event loop, unless a crowd was just seen). */
  async enter(key: string | undefined): Promise<boolean> {
    this.active++;
    if (this.active > 1) return this.crowd();
    if (performance.now() < this.crowdUntil) return true;
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (this.active > 1) return this.crowd();
    return key !== undefined && this.long.has(key);
  }

  private crowd(): true {
    this.crowdUntil = performance.now() + CROWD_MS;
    return true;
  }

  /**
   * The call that entered is done; `mainMs` is how long it ran on the main thread, `workerMs` how
   * long it took on a worker (hop and queue included), whichever it did. A long run on the main
   * thread marks its key; a short one clears it, and so does a run on a worker under half that
   * time (so a call that was long once, as the first call of a process is, running cold, comes
   * back to the main thread after one quick run on a worker, and a call near the bound does not
   * swing between the two).
   */
  leave(key: string | undefined, mainMs?: number, workerMs?: number): void {
    this.active--;
    if (key === undefined) return;
    if (mainMs !== undefined && mainMs >= LONG_CALL_MS) {
      this.long.delete(key);
      this.long.set(key, true);
      if (this.long.size > REMEMBERED) this.long.delete(this.long.keys().next().value!);
    } else if (mainMs !== undefined || (workerMs !== undefined && workerMs < LONG_CALL_MS / 2)) this.long.delete(key);
  }
}

/** The key calls are remembered by: target address and 4-byte selector. */
export function callKey(to: Uint8Array | undefined, data: Uint8Array | undefined): string | undefined {
  if (to === undefined) return undefined;
  let k = '';
  for (let i = 0; i < to.length; i++) k += String.fromCharCode(to[i]!);
  if (data !== undefined) for (let i = 0; i < 4 && i < data.length; i++) k += String.fromCharCode(data[i]!);
  return k;
}
