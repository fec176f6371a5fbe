/**
 * Transaction tracing for debug_traceTransaction / debug_traceCall / debug_traceBlockBy*:
 * geth's struct logger and native tracers (callTracer, prestateTracer, 4byteTracer, noopTracer,
 * muxTracer), producing geth's JSON shapes.
 *
 * The chain positions a VM just before the transaction (or call), then calls `traceRun`; the
 * tracer listens to the EVM's events only while `run()` executes.
 */
import type { VM } from '@ethereumjs/vm';
import { bytesToHex, createAddressFromString, type Address } from '@ethereumjs/util';
import { ChainError } from '../chain/core/errors.js';
import { CallTracer } from './callTracer.js';
import type { TraceConfig, TracerSpec } from './config.js';
import { TraceDriver, TraceTimeoutError, type Tracer } from './driver.js';
import type { TraceTx } from './hooks.js';
import { FlatCallTracer } from './flatCallTracer.js';
import { FourByteTracer } from './fourByteTracer.js';
import { JsTracer } from './jsTracer.js';
import { MuxTracer } from './muxTracer.js';
import { NoopTracer } from './noopTracer.js';
import { ParityTracer } from './parityTracer.js';
import { PrestateTracer } from './prestateTracer.js';
import { SourceTracer } from './sourceTracer.js';
import { StepTracer } from './stepTracer.js';
import { StructLogger } from './structLogger.js';
import { recordCoverage } from '../chain/exec/coverage.js';

export { parseTraceConfig, parseGoDuration, DEFAULT_TIMEOUT_MS } from './config.js';
export type { TraceConfig, TracerSpec, StructLoggerOptions, CallTracerOptions, PrestateTracerOptions, FlatCallTracerOptions } from './config.js';
export { isJsTracer } from './config.js';
export { unpackRevert } from './callTracer.js';
export type { ParityTrace } from './parityTracer.js';
export { parityStateDiff } from './parityStateDiff.js';

export interface TraceRun extends TraceTx {
  /** State positioned just before this transaction / call. */
  vm: VM;
  /**
   * Executes the transaction (runTx) or the call (evm.runCall) on `vm`; the tracer is attached
   * to vm.evm.events meanwhile. When it resolves, `vm.stateManager` must still hold the
   * post-transaction state (prestateTracer's diffMode reads it); revert afterwards.
   */
  run(): Promise<TraceOutcome>;
  /** EIP-7702 authorities of the transaction (prestateTracer looks them up before execution). */
  authorities?: Address[];
}

export interface TraceOutcome {
  /** Gas used as the receipt reports it (after refunds, with the EIP-7623 floor). */
  gasUsed: bigint;
  returnValue: Uint8Array;
  /** EVM error message, e.g. 'execution reverted', 'out of gas'. */
  error?: string;
  createdAddress?: Address;
}

function precompileTest(target: TraceRun): (address: string) => boolean {
  const evm = target.vm.evm as unknown as { getPrecompile?(a: unknown): unknown };
  return (a) => evm.getPrecompile?.(createAddressFromString(a)) !== undefined;
}

function buildTracer(spec: TracerSpec, target: TraceRun, config: TraceConfig): Tracer {
  const { maxSteps, sources } = config;
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
    case 'flatCallTracer': {
      const hex = (b: Uint8Array | undefined) => (b === undefined ? undefined : bytesToHex(b));
      const ctx = { blockHash: hex(target.blockHash), blockNumber: target.blockNumber, txHash: hex(target.txHash), txIndex: target.txIndex };
      return new FlatCallTracer(spec.options, ctx, precompileTest(target));
    }
    case 'js':
      return new JsTracer(spec.source, spec.config, { ...target, isPrecompile: precompileTest(target) }, config.timeoutMs);
    case 'noopTracer':
      return new NoopTracer();
    case 'sourceTracer':
      return new SourceTracer(sources);
    case 'stepTracer':
      return new StepTracer(spec.options, sources);
    case 'parity':
      return new ParityTracer();
    case 'muxTracer':
      return new MuxTracer(spec.tracers.map(({ key, spec: sub }) => ({ key, tracer: buildTracer(sub, target, config) })));
  }
}

/**
 * Run `target` with the configured tracer attached and return geth's JSON result. Throws
 * ChainError('execution timeout') when the configured timeout elapses (the VM's state is then
 * mid-execution and must be discarded by the caller).
 */
export async function traceRun(target: TraceRun, config: TraceConfig): Promise<unknown> {
  const tracer = buildTracer(config.tracer, target, config);
  try {
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
    await tracer.txEnd?.({ vm, stateManager: vm.stateManager, gasUsed: outcome.gasUsed, top, createdAddress: outcome.createdAddress });
    return tracer.result();
  } finally {
    tracer.close?.();
  }
}
