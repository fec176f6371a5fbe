/**
 * The threads JavaScript tracers run on (jsWorker.ts): started when a trace needs one, kept idle
 * for the next traces for a while, ended when a tracer runs past its deadline or exhausts its heap.
 * And the node's side of the shared-memory exchange (jsProtocol.ts): handing a turn over, and
 * waiting for it back, first on the spot and then without holding the event loop.
 */
import { Worker } from 'node:worker_threads';
import { ChainError } from '../chain/core/errors.js';
import { CONSTANTS, LEN, MSG, NODE_TURN, NUMS, NUMS_AT, PAYLOAD, PAYLOAD_AT, SAB_BYTES, TRACER_TURN, TURN } from './jsProtocol.js';
import { sandboxBigInt } from './jsBigInt.js';
import { sandboxByteGuard } from './jsGuard.js';
import { sandboxPrelude } from './jsSandbox.js';
import { tracerWorkerSource, type WorkerSetup } from './jsWorker.js';
import { opName } from './opcodes.js';

/** A tracer thread's heap bound. */
export const TRACER_HEAP_MB = 256;
/** Busy-wait rounds before a wait sleeps (a quick tracer answers within them). */
const SPIN = 20_000;
/** How long the EVM waits on the spot for a hook before it waits without holding the event loop. */
const SYNC_WAIT_MS = 2;
/** Idle tracer threads kept for the next traces, and how long. */
const KEEP_IDLE = 2;
const IDLE_MS = 30_000;

export interface Thread {
  worker: Worker;
  ctl: Int32Array;
  nums: Float64Array;
  bytes: Uint8Array;
  /** Why the thread ended (undefined while it runs). */
  ended: string | undefined;
  exited: Promise<void>;
  timer?: NodeJS.Timeout;
}

const idle: Thread[] = [];
let setup: Omit<WorkerSetup, 'sab'> | undefined;

function spawn(): Thread {
  setup ??= {
    prelude: sandboxPrelude.toString(),
    bigint: sandboxBigInt.toString(),
    guard: sandboxByteGuard.toString(),
    byteLimit: TRACER_HEAP_MB * 1024 * 1024,
    byteMessage: `tracer exceeded its memory limit (${TRACER_HEAP_MB} MB)`,
    constants: CONSTANTS,
    opNames: Array.from({ length: 256 }, (_, i) => opName(i)),
  };
  const sab = new SharedArrayBuffer(SAB_BYTES);
  const worker = new Worker(tracerWorkerSource(), {
    eval: true,
    workerData: { ...setup, sab } satisfies WorkerSetup,
    resourceLimits: { maxOldGenerationSizeMb: TRACER_HEAP_MB, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
    stdout: true,
    stderr: true,
  });
  worker.unref();
  const t: Thread = {
    worker,
    ctl: new Int32Array(sab, 0, 16),
    nums: new Float64Array(sab, NUMS_AT, NUMS),
    bytes: new Uint8Array(sab, PAYLOAD_AT, PAYLOAD),
    ended: undefined,
    exited: Promise.resolve(),
  };
  t.exited = new Promise<void>((resolve) => {
    worker.on('error', (err: Error & { code?: string }) => {
      t.ended ??= err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? `tracer exceeded its memory limit (${TRACER_HEAP_MB} MB)` : `tracer thread failed: ${err.message}`;
    });
    worker.on('exit', () => {
      t.ended ??= 'tracer thread ended';
      const i = idle.indexOf(t);
      if (i !== -1) idle.splice(i, 1);
      resolve();
    });
  });
  return t;
}

export function take(): Thread {
  for (;;) {
    const t = idle.pop();
    if (t === undefined) return spawn();
    clearTimeout(t.timer);
    if (t.ended === undefined) return t;
  }
}

export function keep(t: Thread): void {
  if (t.ended !== undefined || idle.length >= KEEP_IDLE) {
    void t.worker.terminate();
    return;
  }
  t.timer = setTimeout(() => void t.worker.terminate(), IDLE_MS);
  t.timer.unref();
  idle.push(t);
}

/** Hand the turn to the tracer with a message. */
export function hand(t: Thread, kind: number, len: number): void {
  t.ctl[MSG] = kind;
  t.ctl[LEN] = len;
  Atomics.store(t.ctl, TURN, TRACER_TURN);
  Atomics.notify(t.ctl, TURN);
}

/** Wait on the spot for the tracer's answer, briefly; false when it has not come. */
export function waitSync(t: Thread): boolean {
  const ctl = t.ctl;
  for (let i = 0; i < SPIN; i++) if (Atomics.load(ctl, TURN) === NODE_TURN) return true;
  const until = performance.now() + SYNC_WAIT_MS;
  while (Atomics.load(ctl, TURN) !== NODE_TURN) {
    const left = until - performance.now();
    if (left <= 0) return false;
    Atomics.wait(ctl, TURN, TRACER_TURN, left);
  }
  return true;
}

/** Wait for the tracer's answer without holding the event loop; past `deadline` the thread is ended. */
export async function waitAsync(t: Thread, deadline: number): Promise<void> {
  while (Atomics.load(t.ctl, TURN) !== NODE_TURN) {
    if (t.ended !== undefined) throw new ChainError(t.ended);
    const left = deadline - performance.now();
    if (left <= 0) {
      t.ended = 'execution timeout';
      void t.worker.terminate();
      throw new ChainError('execution timeout');
    }
    const w = (Atomics as unknown as AtomicsAsync).waitAsync(t.ctl, TURN, TRACER_TURN, Math.min(left, 100));
    if (w.async) await Promise.race([w.value, t.exited]);
  }
}

/** The tracer's error message from the payload. */
export function tracerError(t: Thread): ChainError {
  return new ChainError(Buffer.from(t.bytes.subarray(0, t.ctl[LEN])).toString('utf8'));
}

/** Atomics.waitAsync (Node 16+; not in the ES2022 library types). */
interface AtomicsAsync {
  waitAsync(a: Int32Array, index: number, value: number, timeoutMs: number): { async: false; value: string } | { async: true; value: Promise<string> };
}
