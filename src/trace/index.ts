/**
 * Transaction tracing for debug_traceTransaction / debug_traceCall / debug_traceBlockBy*:
 * geth's struct logger and native tracers (callTracer, prestateTracer, 4byteTracer, noopTracer,
 * muxTracer), producing geth's JSON shapes.
 *
 * The chain positions a VM just before the transaction (or call), then calls `traceRun`; the
 * tracer listens to the EVM's events only while `run()` executes.
 */
import type { VM } from '@ethereumjs/vm';
import type { Address } from '@ethereumjs/util';
import { ChainError } from '../chain/core/errors.js';
import { CallTracer } from './callTracer.js';
import type { TraceConfig, TracerSpec } from './config.js';
import { TraceDriver, TraceTimeoutError, type Tracer } from './driver.js';
import { FourByteTracer } from './fourByteTracer.js';
import { MuxTracer } from './muxTracer.js';
import { NoopTracer } from './noopTracer.js';
import { ParityTracer } from './parityTracer.js';
import { PrestateTracer } from './prestateTracer.js';
import { SourceTracer } from './sourceTracer.js';
import { StepTracer } from './stepTracer.js';
import type { SourceLocator } from '../chain/core/sources.js';
import { StructLogger } from './structLogger.js';
import { recordCoverage } from '../chain/exec/coverage.js';

export { parseTraceConfig, parseGoDuration, DEFAULT_TIMEOUT_MS } from './config.js';
export type { TraceConfig, TracerSpec, StructLoggerOptions, CallTracerOptions, PrestateTracerOptions } from './config.js';
export { unpackRevert } from './callTracer.js';
export type { ParityTrace } from './parityTracer.js';
export { parityStateDiff } from './parityStateDiff.js';

export interface TraceRun {
  /** State positioned just before this transaction / call. */
  vm: VM;
  /**
   * Executes the transaction (runTx) or the call (evm.runCall) on `vm`; the tracer is attached
   * to vm.evm.events meanwhile. When it resolves, `vm.stateManager` must still hold the
   * post-transaction state (prestateTracer's diffMode reads it); revert afterwards.
   */
  run(): Promise<TraceOutcome>;
  from: Address;
  to?: Address;
  value: bigint;
  input: Uint8Array;
  /** The transaction's gas limit (callTracer reports it as the top frame's gas). */
  gasLimit: bigint;
  gasPrice: bigint;
  type: 'CALL' | 'CREATE';
  /** Block beneficiary (prestateTracer includes it, as geth does). */
  coinbase?: Address;
  /** EIP-7702 authorities of the transaction (prestateTracer looks them up before execution). */
  authorities?: Address[];
  /** Index in the block of the transaction's first log (callTracer's log `index`); 0 for calls. */
  logIndexOffset?: number;
}

export interface TraceOutcome {
  /** Gas used as the receipt reports it (after refunds, with the EIP-7623 floor). */
  gasUsed: bigint;
  returnValue: Uint8Array;
  /** EVM error message, e.g. 'execution reverted', 'out of gas'. */
  error?: string;
  createdAddress?: Address;
}

function buildTracer(spec: TracerSpec, target: TraceRun, maxSteps: number | undefined, sources: SourceLocator | undefined): Tracer {
  switch (spec.name) {
    case 'structLogger':
      return new StructLogger(spec.options, maxSteps);
    case 'callTracer':
      return new CallTracer(spec.options);
    case 'prestateTracer':
      return new PrestateTracer(spec.options, target);
    case '4byteTracer': {
      const evm = target.vm.evm as unknown as { getPrecompile?(a: string): unknown };
      return new FourByteTracer((a) => evm.getPrecompile?.(a as `0x${string}`) !== undefined);
    }
    case 'noopTracer':
      return new NoopTracer();
    case 'sourceTracer':
      return new SourceTracer(sources);
    case 'stepTracer':
      return new StepTracer(spec.options, sources);
    case 'parity':
      return new ParityTracer();
    case 'muxTracer':
      return new MuxTracer(spec.tracers.map(({ key, spec: sub }) => ({ key, tracer: buildTracer(sub, target, maxSteps, sources) })));
  }
}

/**
 * Run `target` with the configured tracer attached and return geth's JSON result. Throws
 * ChainError('execution timeout') when the configured timeout elapses (the VM's state is then
 * mid-execution and must be discarded by the caller).
 */
export async function traceRun(target: TraceRun, config: TraceConfig): Promise<unknown> {
  const tracer = buildTracer(config.tracer, target, config.maxSteps, config.sources);
  const vm = target.vm;
  const driver = new TraceDriver(vm, target, tracer, config.timeoutMs);
  await tracer.txStart?.({ vm, stateManager: vm.stateManager });
  let outcome: TraceOutcome;
  try {
    const coverage = config.coverage;
    outcome = await driver.run(coverage === undefined ? () => target.run() : () => recordCoverage(vm.evm.events, coverage, () => target.run()));
  } catch (err) {
    if (err instanceof TraceTimeoutError) throw new ChainError('execution timeout');
    throw err;
  }
  const top = driver.top ?? {
    output: outcome.returnValue,
    gasUsed: outcome.gasUsed,
    error: outcome.error,
  };
  await tracer.txEnd?.({ vm, stateManager: vm.stateManager, gasUsed: outcome.gasUsed, top });
  return tracer.result();
}
