/**
 * The node's mutex: the VM's live state is touched by one operation at a time.
 *
 * Changes (`run`) are queued per client (a connection, as the rpc layer names it; the node's own
 * work, such as interval mining and state writes, is one more client). Each client's changes run
 * in the order it requested them; different clients take turns: clients with changes queued wait
 * in a line, and each turn the client at the front runs its oldest change and, once that ends,
 * goes to the back if it has more (behind any client that queued meanwhile). So a change waits for
 * at most the change under way and one change of each other client with work queued, never for
 * another client's backlog. A client that has nothing queued when its change comes joins the back
 * of the line, so changes of clients that send one at a time still run in arrival order.
 *
 * Reads of the live state (`read`: a call or a state root at the head) take turns with changes:
 * a read goes before every change asked for after it, and when a change ends, every read waiting
 * at that moment goes before the next change. So a read never sees a change asked for after it
 * (sixteen balance reads and then `anvil_setBalance`, pipelined together, all read the balance
 * before it; over a WebSocket, the hardhat node and anvil answered some of them with the balance
 * after it), a read waits for at most one change however many are queued, and a stream of reads
 * never holds up a change for longer than the reads that were already waiting. Queued tasks run
 * back to back for at most 2 ms, then the event loop takes a turn, so other connections' requests
 * are read and queued meanwhile (a burst of short reads is not spread over many turns of the
 * loop).
 */
/** A queued read or change: `seq` orders it among all tasks asked for. */
interface Task {
  readonly seq: number;
  run(): void;
}

/** Whoever requests a change: any object standing for one client (the rpc layer uses the connection). */
export type Client = object;

/** Queued tasks run back to back for at most this long before the event loop gets a turn. */
const TURN_MS = 2;

/** The node's own changes (interval mining, state writes): those requested without a client. */
const NODE: Client = Object.freeze({});

/** The client on whose behalf the code running now asks (see `asClient`). */
let asking: Client | undefined;

/**
 * Run `fn` on behalf of `client`: a change `fn` requests before its first await is queued as
 * `client`'s (none: the node's own). The rpc layer wraps each handler's synchronous start in it; a
 * chain method that awaits before it takes the lock reads `askingClient()` first and passes it to
 * `run`, or calls on in `asClient` again. (A plain
 * variable, not an AsyncLocalStorage: that one follows every await but, on Node 20, hooks every
 * promise of the process, which made a one-request-at-a-time test suite measurably slower.)
 */
export function asClient<T>(client: Client | undefined, fn: () => T): T {
  const outer = asking;
  asking = client;
  try {
    return fn();
  } finally {
    asking = outer;
  }
}

/** The client asking now (set by `asClient`); undefined for the node's own work. */
export function askingClient(): Client | undefined {
  return asking;
}

export class Lock {
  private busy = false;
  /** Each client's queued changes, in the order it requested them. */
  private readonly changes = new Map<Client, Task[]>();
  /** Clients with changes queued, in the order their turns come (not the one whose change runs now). */
  private readonly line: Client[] = [];
  /** The client whose change ran last, until the next task starts: it goes to the back of the line then, if it has more. */
  private turnOf: Client | undefined;
  private readonly reads: Task[] = [];
  /** The next task's `seq`. */
  private asked = 0;
  /** Reads that go before the next change (those waiting when the last change ended). */
  private readTurn = 0;
  /** When the event loop last had a turn between queued tasks. */
  private turnAt = 0;

  /**
   * Run `fn` once every change `client` requested before it is done, taking turns with other
   * clients' changes (and with the reads waiting when a change ends). `client` defaults to the one
   * asking now (`asClient`); none is the node's own work.
   */
  run<T>(fn: () => Promise<T>, client: Client | undefined = asking): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const key = client ?? NODE;
      let queue = this.changes.get(key);
      if (queue === undefined) {
        queue = [];
        this.changes.set(key, queue);
        this.line.push(key);
      }
      queue.push(this.task(fn, resolve, reject, true));
      this.wake();
    });
  }

  /** Run `fn`, which only reads the live state, after at most the change under way (and the reads queued before it). */
  read<T>(fn: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.reads.push(this.task(fn, resolve, reject, false));
      this.wake();
    });
  }

  private task<T>(fn: () => Promise<T>, resolve: (v: T) => void, reject: (e: unknown) => void, change: boolean): Task {
    const run = (): void => {
      let out: Promise<T>;
      try {
        out = fn();
      } catch (err) {
        out = Promise.reject(err);
      }
      out.then(resolve, reject).finally(() => this.done(change));
    };
    return { seq: this.asked++, run };
  }

  private wake(): void {
    if (this.busy) return;
    this.busy = true;
    // Started on a later microtask, as a promise chain would: never inside the caller's frame.
    queueMicrotask(() => this.next(false));
  }

  /**
   * A task ended. When others wait, the next starts after a turn of the event loop: tasks that
   * never wait for I/O would otherwise follow each other in microtasks, and no socket would be
   * read (no other client's request even parsed) until the whole queue was done.
   */
  private done(change: boolean): void {
    if (!this.waiting() || performance.now() - this.turnAt < TURN_MS) {
      this.next(change);
      return;
    }
    setImmediate(() => {
      this.turnAt = performance.now();
      this.next(change);
    });
  }

  /** Whether any task waits. */
  private waiting(): boolean {
    return this.line.length > 0 || this.reads.length > 0 || (this.turnOf !== undefined && this.changes.get(this.turnOf)!.length > 0);
  }

  /**
   * Start the next task: after a change, the reads then waiting; otherwise the oldest read if it was
   * asked for before the next client's change in turn, else that change.
   */
  private next(afterChange: boolean): void {
    if (afterChange) {
      this.readTurn = this.reads.length;
      // The client whose change just ended goes behind those that queued meanwhile.
      const key = this.turnOf!;
      this.turnOf = undefined;
      if (this.changes.get(key)!.length > 0) this.line.push(key);
      else this.changes.delete(key);
    }
    let task: Task | undefined;
    if (this.readTurn > 0 && this.reads.length > 0) {
      this.readTurn--;
      task = this.reads.shift();
    } else {
      this.readTurn = 0;
      const read = this.reads[0];
      const client = this.line[0];
      const change = client === undefined ? undefined : this.changes.get(client)![0];
      task = read !== undefined && (change === undefined || read.seq < change.seq) ? this.reads.shift() : this.nextChange();
    }
    if (task === undefined) {
      this.busy = false;
      return;
    }
    task.run();
  }

  /** The oldest change of the client at the front of the line (which leaves the line until its change ends). */
  private nextChange(): Task | undefined {
    const key = this.line.shift();
    if (key === undefined) return undefined;
    this.turnOf = key;
    return this.changes.get(key)!.shift();
  }
}
