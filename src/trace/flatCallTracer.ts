/**
 * geth's flatCallTracer: the callTracer's tree flattened into OpenEthereum-style entries (the
 * shape trace_* methods answer), each with its `traceAddress`, `subtraces` and the block and
 * transaction it belongs to. Calls and static calls to precompiles are left out unless
 * `includePrecompiles`; `convertParityErrors` turns geth's error texts into OpenEthereum's.
 */
import type { FlatCallTracerOptions } from './config.js';
import { CallTracer } from './callTracer.js';
import type { Frame, FrameResult, LogEvent, Tracer, TxEndContext } from './driver.js';

type CallJson = {
  from: string;
  gas: string;
  gasUsed: string;
  to?: string;
  input: string;
  output?: string;
  error?: string;
  calls?: CallJson[];
  value?: string;
  type: string;
};

export interface FlatContext {
  blockHash?: string;
  blockNumber?: bigint;
  txHash?: string;
  txIndex?: number;
}

export class FlatCallTracer implements Tracer {
  private readonly calls = new CallTracer({ onlyTopCall: false, withLog: false });
  readonly ignoresSteps = false;

  constructor(
    private readonly opts: FlatCallTracerOptions,
    private readonly ctx: FlatContext,
    private readonly isPrecompile: (address: string) => boolean,
  ) {}

  enter(frame: Frame): void {
    this.calls.enter(frame);
  }

  exit(frame: Frame, result: FrameResult): void {
    this.calls.exit(frame, result);
  }

  log(log: LogEvent, frame: Frame): void {
    this.calls.log(log, frame);
  }

  txEnd(ctx: TxEndContext): void {
    this.calls.txEnd(ctx);
  }

  result(): unknown {
    const root = this.calls.result() as CallJson;
    const out: Record<string, unknown>[] = [];
    if (root.type !== undefined) this.flatten(root, [], out, true);
    return out;
  }

  private flatten(call: CallJson, traceAddress: number[], out: Record<string, unknown>[], top: boolean): void {
    // geth gives every inner frame a value, zero for a static call's.
    const value = call.value ?? (top ? undefined : '0x0');
    const children = (call.calls ?? []).filter(
      (c) => this.opts.includePrecompiles || !((c.type === 'CALL' || c.type === 'STATICCALL') && c.to !== undefined && this.isPrecompile(c.to)),
    );
    let action: Record<string, unknown>;
    let result: Record<string, unknown> | undefined;
    let type: string;
    if (call.type === 'CREATE' || call.type === 'CREATE2') {
      type = 'create';
      action = { from: call.from, gas: call.gas, init: call.input };
      if (value !== undefined) action.value = value;
      result = { address: call.to, code: call.output ?? '0x', gasUsed: call.gasUsed };
      if (call.to === undefined) delete result.address;
    } else if (call.type === 'SELFDESTRUCT') {
      type = 'suicide';
      action = { address: call.from, balance: value ?? '0x0', refundAddress: call.to };
      result = undefined;
    } else {
      type = 'call';
      action = { callType: call.type.toLowerCase(), from: call.from, gas: call.gas, input: call.input, to: call.to };
      if (value !== undefined) action.value = value;
      result = { gasUsed: call.gasUsed, output: call.output ?? '0x' };
    }
    const entry: Record<string, unknown> = { action };
    const c = this.ctx;
    entry.blockHash = c.blockHash ?? null;
    entry.blockNumber = Number(c.blockNumber ?? 0n);
    if (call.error !== undefined) entry.error = this.opts.convertParityErrors ? parityErrorOf(call.error) : call.error;
    // A revert keeps what it returned (its reason); any other failure has no result.
    if (result !== undefined && (call.error === undefined || call.error === 'execution reverted')) entry.result = result;
    entry.subtraces = children.length;
    entry.traceAddress = traceAddress;
    entry.transactionHash = c.txHash ?? null;
    entry.transactionPosition = c.txIndex ?? 0;
    entry.type = type;
    out.push(entry);
    children.forEach((child, i) => this.flatten(child, [...traceAddress, i], out, false));
  }
}

/** geth's convertParityErrors: these texts, and these beginnings, get OpenEthereum's names; others stay. */
const PARITY_ERRORS: Record<string, string> = {
  'contract creation code storage out of gas': 'Out of gas',
  'out of gas': 'Out of gas',
  'gas uint64 overflow': 'Out of gas',
  'max code size exceeded': 'Out of gas',
  'invalid jump destination': 'Bad jump destination',
  'execution reverted': 'Reverted',
  'return data out of bounds': 'Out of bounds',
  'stack limit reached 1024 (1023)': 'Out of stack',
  'precompiled failed': 'Built-in failed',
  'invalid input length': 'Built-in failed',
};

function parityErrorOf(error: string): string {
  const exact = PARITY_ERRORS[error];
  if (exact !== undefined) return exact;
  if (error.startsWith('invalid opcode:')) return 'Bad instruction';
  if (error.startsWith('stack underflow')) return 'Stack underflow';
  return error;
}
