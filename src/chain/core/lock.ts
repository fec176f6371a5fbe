/**
 * The node's mutex: the VM's live state is touched by one operation at a time.
 *
 * Changes (`run`) go in arrival order. Reads of the live state (`read`: a call or a state root at
 * the head) take turns with them: when a change ends, every read waiting at that moment goes
 * before the next change. So a read waits for at most one change however many are queued (10,000
 * pipelined sends on one connection no longer hold up another client's eth_call for their whole
 * backlog), and a stream of reads never holds up a change for longer than the reads that were
 * already waiting. Queued tasks run back to back for at most 2 ms, then the event loop takes a
 * turn, so other connections' requests are read and queued meanwhile (a burst of short reads is
 * not spread over many turns of the loop).
 */
type Task = () => void;

/** Queued tasks run back to back for at most this long before the event loop gets a turn. */
const TURN_MS = 2;

export class Lock {
  private busy = false;
  private readonly changes: Task[] = [];
  private readonly reads: Task[] = [];
  /** Reads that go before the next change (those waiting when the last change ended). */
  private readTurn = 0;
  /** When the event loop last had a turn between queued tasks. */
  private turnAt = 0;

  /** Run `fn` once every change requested before it (and the reads its turn lets ahead) is done. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    return this.enqueue(this.changes, fn);
  }

  /** Run `fn`, which only reads the live state, after at most the change under way (and the reads queued before it). */
  read<T>(fn: () => Promise<T>): Promise<T> {
    return this.enqueue(this.reads, fn);
  }

  private enqueue<T>(queue: Task[], fn: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      queue.push(() => {
        let out: Promise<T>;
        try {
          out = fn();
        } catch (err) {
          out = Promise.reject(err);
        }
        out.then(resolve, reject).finally(() => this.done(queue === this.changes));
      });
      if (!this.busy) {
        this.busy = true;
        // Started on a later microtask, as a promise chain would: never inside the caller's frame.
        queueMicrotask(() => this.next(false));
      }
    });
  }

  /**
   * A task ended. When others wait, the next starts after a turn of the event loop: tasks that
   * never wait for I/O would otherwise follow each other in microtasks, and no socket would be
   * read (no other client's request even parsed) until the whole queue was done.
   */
  private done(change: boolean): void {
    if ((this.changes.length === 0 && this.reads.length === 0) || performance.now() - this.turnAt < TURN_MS) {
      this.next(change);
      return;
    }
    setImmediate(() => {
      this.turnAt = performance.now();
      this.next(change);
    });
  }

  /** Start the next task: after a change, the reads then waiting; otherwise changes first in turn. */
  private next(afterChange: boolean): void {
    if (afterChange) this.readTurn = this.reads.length;
    let task: Task | undefined;
    if (this.readTurn > 0 && this.reads.length > 0) {
      this.readTurn--;
      task = this.reads.shift();
    } else {
      this.readTurn = 0;
      task = this.changes.shift() ?? this.reads.shift();
    }
    if (task === undefined) {
      this.busy = false;
      return;
    }
    task();
  }
}
