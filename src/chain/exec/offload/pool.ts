/**
 * Call workers: eth_call on worker threads, so calls use the machine's other cores while the main
 * thread parses, writes and mines. Each worker reads the node's trie node store, whose bytes are
 * shared memory, through an index of its own (replica.ts) kept current by the writes logged since
 * its start, sent ahead of every call, so it can open the exact state root the node resolved for
 * the call. A call comes here only when other requests are in progress or its code ran long before
 * (routing.ts): a lone caller pays no thread hop. Workers start with the first such call and stop
 * after a while without calls; until one is ready, and for whatever a worker cannot answer the way
 * the node would, the node runs the call itself.
 */
import { Worker } from 'node:worker_threads';
import type { SupportedHardfork } from '../../core/config.js';
import type { CallJob, CallReply, FromWorker, WorkerInit } from './protocol.js';
import type { RecordedStore } from './replica.js';
import { CallRouting } from './routing.js';

/** Workers stop after this long without a call (their indexes go with them). */
export const IDLE_STOP_MS = 30_000;

interface Slot {
  worker: Worker;
  ready: boolean;
  busy: number;
}

export class CallWorkers {
  private slots: Slot[] = [];
  private readonly waiting = new Map<number, { slot: Slot; resolve: (r: CallReply) => void }>();
  private nextId = 1;
  private lastUse = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  /** Set when a worker could not start: calls stay on the main thread from then on. */
  private broken = false;
  /** Which calls come here: only when others are in progress, or for code that ran long. */
  readonly routing = new CallRouting();

  constructor(
    private readonly nodes: RecordedStore,
    /** How many workers run while calls come (0: none). */
    readonly size: number,
    private readonly rules: () => { chainId: bigint; hardfork: SupportedHardfork; codeSizeLimit?: number },
    private readonly idleMs = IDLE_STOP_MS,
  ) {}

  /** Whether a worker is ready to take a call; the first ask starts the workers. */
  available(): boolean {
    if (this.size === 0 || this.broken) return false;
    this.lastUse = performance.now();
    if (this.slots.length === 0) this.start();
    return this.slots.some((s) => s.ready);
  }

  /**
   * Run `job` on the least busy ready worker; undefined when none is ready (workers are started
   * then, and the caller runs the call itself).
   */
  run(job: Omit<CallJob, 'id'>): Promise<CallReply> | undefined {
    if (!this.available()) return undefined;
    let slot: Slot | undefined;
    for (const s of this.slots) if (s.ready && (slot === undefined || s.busy < slot.busy)) slot = s;
    if (slot === undefined) return undefined;
    const nodes = this.nodes.take();
    if (nodes !== undefined) for (const s of this.slots) s.worker.postMessage({ kind: 'nodes', nodes });
    const id = this.nextId++;
    const target = slot;
    target.busy++;
    return new Promise<CallReply>((resolve) => {
      this.waiting.set(id, { slot: target, resolve });
      target.worker.postMessage({ kind: 'call', id, ...job });
    });
  }

  /** Stop every worker (the node is closing, or calls stopped coming). */
  stop(): void {
    clearInterval(this.idleTimer);
    this.idleTimer = undefined;
    const slots = this.slots;
    this.slots = [];
    this.nodes.stopLog();
    for (const s of slots) {
      this.failWaiting(s, 'worker stopped');
      void s.worker.terminate();
    }
  }

  private start(): void {
    const init: WorkerInit = { nodes: this.nodes.startLog(), ...this.rules() };
    for (let i = 0; i < this.size; i++) {
      const worker = new Worker(new URL('./worker.js', import.meta.url), { workerData: init });
      worker.unref();
      const slot: Slot = { worker, ready: false, busy: 0 };
      worker.on('message', (m: FromWorker) => {
        if (m.kind === 'ready') {
          slot.ready = true;
          return;
        }
        const w = this.waiting.get(m.id);
        if (w === undefined) return;
        this.waiting.delete(m.id);
        slot.busy--;
        w.resolve(m);
      });
      worker.on('error', (err) => {
        if (!slot.ready && !this.broken) {
          this.broken = true;
          process.emitWarning(`call workers disabled, calls run on the main thread: ${err.message}`);
        }
        this.drop(slot);
      });
      worker.on('exit', () => this.drop(slot));
      this.slots.push(slot);
    }
    this.idleTimer = setInterval(() => {
      if (performance.now() - this.lastUse > this.idleMs && this.waiting.size === 0) this.stop();
    }, Math.max(1000, this.idleMs / 4));
    this.idleTimer.unref();
  }

  private drop(slot: Slot): void {
    const i = this.slots.indexOf(slot);
    if (i === -1) return;
    this.slots.splice(i, 1);
    this.failWaiting(slot, 'worker exited');
    // Without workers the log would grow for nobody; the next call starts them afresh.
    if (this.slots.length === 0) this.stop();
  }

  private failWaiting(slot: Slot, reason: string): void {
    for (const [id, w] of this.waiting) {
      if (w.slot !== slot) continue;
      this.waiting.delete(id);
      w.resolve({ id, kind: 'fallback', reason });
    }
  }
}
