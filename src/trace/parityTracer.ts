/**
 * OpenEthereum ("Parity") traces, as trace_* methods answer them: the call tree flattened in
 * execution order, each frame with its `traceAddress` (path of child indexes) and `subtraces`.
 * `action` says what was asked (call, create, suicide), `result` what came back; a failed frame
 * carries `error` ("Reverted", "Out of gas", …), and a reverted one keeps its result (gas used,
 * revert output) as anvil and reth report it.
 */
import type { Frame, FrameResult, Tracer } from './driver.js';
import { hexBytes, hexQuantity } from './hex.js';

export interface ParityTrace {
  action: Record<string, unknown>;
  error?: string;
  result: Record<string, unknown> | null;
  subtraces: number;
  traceAddress: number[];
  type: 'call' | 'create' | 'suicide';
}

interface Node {
  frame: Frame;
  result: FrameResult | undefined;
  to: string | undefined;
  children: Node[];
}

/** OpenEthereum's names for what went wrong, from the driver's geth texts. */
function parityError(gethError: string): string {
  if (gethError === 'execution reverted') return 'Reverted';
  if (gethError.startsWith('out of gas') || gethError === 'contract creation code storage out of gas') return 'Out of gas';
  if (gethError === 'invalid jump destination') return 'Bad jump destination';
  if (gethError.startsWith('invalid opcode')) return 'Bad instruction';
  if (gethError.startsWith('stack underflow')) return 'Stack underflow';
  if (gethError.startsWith('stack limit reached') || gethError.startsWith('stack overflow')) return 'Out of stack';
  if (gethError === 'write protection') return 'Mutable call in static context';
  if (gethError === 'contract address collision') return 'Contract address collision';
  return gethError;
}

export class ParityTracer implements Tracer {
  private readonly stack: Node[] = [];
  private root: Node | undefined;

  enter(frame: Frame): void {
    const node: Node = { frame, result: undefined, to: frame.to, children: [] };
    if (this.root === undefined) this.root = node;
    else this.stack[this.stack.length - 1]?.children.push(node);
    this.stack.push(node);
  }

  exit(frame: Frame, result: FrameResult): void {
    const node = this.stack.pop();
    if (node === undefined) return;
    node.result = result;
    node.to = frame.to;
  }

  result(): ParityTrace[] {
    const out: ParityTrace[] = [];
    if (this.root !== undefined) flatten(this.root, [], out);
    return out;
  }
}

function flatten(node: Node, traceAddress: number[], out: ParityTrace[]): void {
  out.push(encode(node, traceAddress, traceAddress.length === 0));
  node.children.forEach((child, i) => flatten(child, [...traceAddress, i], out));
}

function encode(node: Node, traceAddress: number[], top: boolean): ParityTrace {
  const f = node.frame;
  // The transaction's own frame gets what is left after intrinsic gas, as OpenEthereum reports it.
  const gas = hexQuantity(top ? (f.msg?.gasLimit ?? f.gas) : f.gas);
  const r = node.result;
  const value = hexQuantity(f.value ?? 0n);
  const gasUsed = hexQuantity(r?.gasUsed ?? 0n);
  const failed = r?.error !== undefined;
  const reverted = r?.error === 'execution reverted';
  const base = { subtraces: node.children.length, traceAddress };
  if (f.type === 'SELFDESTRUCT') {
    return { action: { address: f.from, balance: value, refundAddress: node.to ?? f.to ?? '' }, result: null, ...base, type: 'suicide' };
  }
  const trace: ParityTrace =
    f.type === 'CREATE' || f.type === 'CREATE2'
      ? {
          action: { from: f.from, gas, init: hexBytes(f.input), value, creationMethod: f.type.toLowerCase() },
          result: { address: failed ? null : (node.to ?? null), code: hexBytes(failed ? new Uint8Array() : (r?.output ?? new Uint8Array())), gasUsed },
          ...base,
          type: 'create',
        }
      : {
          action: { from: f.from, callType: f.type.toLowerCase(), gas, input: hexBytes(f.input), to: node.to ?? f.to ?? '', value },
          result: { gasUsed, output: hexBytes(r?.output ?? new Uint8Array()) },
          ...base,
          type: 'call',
        };
  if (failed) {
    trace.error = parityError(r!.error!);
    // A revert keeps what it used and returned; other failures have no result.
    if (!reverted) trace.result = null;
  }
  return trace;
}
