/**
 * The thread a JavaScript tracer runs on. Its heap is bounded (the worker's resourceLimits), the
 * node can end it at any moment (a tracer past its deadline), and each trace gets a fresh
 * `node:vm` context made without a prototype (so `this.constructor` is the context's own Object)
 * and with code generation from strings off (so the context's `Function` and `eval` compile
 * nothing): a tracer sees ECMAScript's built-ins and geth's tracer API, and no `require`,
 * `process`, timers or network. Script runs are bounded by the trace's timeout as well.
 *
 * `tracerWorkerMain` is started from its source (`new Worker(src, { eval: true })`): it must not
 * refer to anything outside itself, and reaches Node through `process.getBuiltinModule`.
 */

/** What the worker is started with. */
export interface WorkerSetup {
  sab: SharedArrayBuffer;
  /** Sources of sandboxPrelude and sandboxBigInt (evaluated in each trace's context). */
  prelude: string;
  bigint: string;
  /** Source of sandboxByteGuard, and the bytes of arrays a tracer may allocate in one trace. */
  guard: string;
  byteLimit: number;
  byteMessage: string;
  constants: unknown;
  opNames: string[];
}

/** One trace. */
export interface WorkerJob {
  source: string;
  /** The `tracerConfig` as JSON text (setup's argument). */
  config: string;
  precompiles: string[];
  timeoutMs: number;
}

/* eslint-disable */
export function tracerWorkerMain(): void {
  const proc = (globalThis as any).process;
  const { parentPort, workerData } = proc.getBuiltinModule('node:worker_threads');
  const vm = proc.getBuiltinModule('node:vm');
  const setup = workerData as WorkerSetup;
  const K: any = setup.constants;
  const ctl = new Int32Array(setup.sab, 0, 16);
  const nums = new Float64Array(setup.sab, 64, 16);
  const bytes = new Uint8Array(setup.sab, 64 + 16 * 8);

  function report(message: string): void {
    const b = Buffer.from(message, 'utf8');
    const n = Math.min(b.length, bytes.length);
    bytes.set(b.subarray(0, n));
    ctl[K.MSG] = K.R.ERROR;
    ctl[K.LEN] = n;
    Atomics.store(ctl, K.TURN, K.NODE_TURN);
    Atomics.notify(ctl, K.TURN);
  }

  parentPort.on('message', (job: WorkerJob) => {
    const opts = { timeout: Math.max(1, Math.ceil(job.timeoutMs)), displayErrors: false };
    try {
      const context = vm.createContext(Object.create(null), {
        codeGeneration: { strings: false, wasm: false },
        microtaskMode: 'afterEvaluate',
      });
      const bigInt = vm.runInContext(`(${setup.bigint})()`, context, opts);
      const install = vm.runInContext(`(${setup.prelude})`, context, opts);
      const setTracer = install(K, ctl, nums, bytes, bigInt, setup.opNames, job.precompiles, job.config);
      vm.runInContext(`(${setup.guard})(${setup.byteLimit}, ${JSON.stringify(setup.byteMessage)})`, context, opts);
      let tracer: unknown;
      try {
        tracer = vm.runInContext(`(${job.source}\n)`, context, { ...opts, filename: 'tracer.js' });
      } catch (e) {
        // A syntax error or a throw while the tracer's object is built: geth answers the error itself.
        report(describe(e));
        return;
      }
      setTracer(tracer);
      vm.runInContext('__run()', context, opts);
    } catch (e) {
      // The trace ran past its time (the node stops waiting at the same moment), or the sandbox failed.
      report(describe(e));
    }
  });

  function describe(e: unknown): string {
    try {
      if (e !== null && typeof e === 'object' && (e as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return 'execution timeout';
      if (e !== null && typeof e === 'object' && 'name' in e && 'message' in e) return `${String((e as Error).name)}: ${String((e as Error).message)}`;
      return String(e);
    } catch {
      return 'tracer error';
    }
  }
}

/** The worker's source, for `new Worker(source, { eval: true })`. */
export function tracerWorkerSource(): string {
  return `(${tracerWorkerMain.toString()})()`;
}
