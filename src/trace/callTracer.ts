/** geth's native callTracer: the tree of call frames, optionally with logs. */
import type { CallTracerOptions } from './config.js';
import type { Frame, FrameResult, LogEvent, Tracer, TxEndContext } from './driver.js';
import { hashHex, hexBytes, hexQuantity } from './hex.js';

interface CallLog {
  address: string;
  topics: string[];
  data: string;
  index: string;
  position: string;
}

interface Node {
  frame: Frame;
  gasUsed: bigint;
  to: string | undefined;
  output: Uint8Array | undefined;
  error: string | undefined;
  revertReason: string | undefined;
  calls: Node[];
  logs: CallLog[];
}

export class CallTracer implements Tracer {
  private readonly stack: Node[] = [];
  private root: Node | undefined;

  constructor(private readonly opts: CallTracerOptions) {}

  enter(frame: Frame): void {
    if (this.opts.onlyTopCall && frame.depth > 1) return;
    const node: Node = {
      frame,
      gasUsed: 0n,
      to: frame.to,
      output: undefined,
      error: undefined,
      revertReason: undefined,
      calls: [],
      logs: [],
    };
    if (this.root === undefined) this.root = node;
    this.stack.push(node);
  }

  exit(frame: Frame, result: FrameResult): void {
    if (this.opts.onlyTopCall && frame.depth > 1) return;
    const node = this.stack.pop();
    if (node === undefined) return;
    node.gasUsed = result.gasUsed;
    node.to = frame.to;
    processOutput(node, result);
    const parent = this.stack[this.stack.length - 1];
    if (parent !== undefined) parent.calls.push(node);
  }

  log(log: LogEvent, frame: Frame): void {
    if (!this.opts.withLog) return;
    if (this.opts.onlyTopCall && frame.depth > 1) return;
    const node = this.stack[this.stack.length - 1];
    if (node === undefined) return;
    node.logs.push({
      address: log.address,
      topics: log.topics.map(hashHex),
      data: hexBytes(log.data),
      index: hexQuantity(log.index),
      position: hexQuantity(node.calls.length),
    });
  }

  txEnd(ctx: TxEndContext): void {
    if (this.root === undefined) return;
    this.root.gasUsed = ctx.gasUsed;
    if (this.opts.withLog) clearFailedLogs(this.root, false);
  }

  result(): unknown {
    if (this.root === undefined) return {};
    return encode(this.root);
  }
}

function processOutput(node: Node, result: FrameResult): void {
  if (result.error === undefined) {
    node.output = result.output;
    return;
  }
  node.error = result.error;
  const type = node.frame.type;
  if (type === 'CREATE' || type === 'CREATE2') node.to = undefined;
  if (result.error !== 'execution reverted' || result.output.length === 0) return;
  node.output = result.output;
  if (result.output.length < 4) return;
  node.revertReason = unpackRevert(result.output);
}

function clearFailedLogs(node: Node, parentFailed: boolean): void {
  const failed = node.error !== undefined || parentFailed;
  if (failed) node.logs = [];
  for (const c of node.calls) clearFailedLogs(c, failed);
}

function encode(node: Node): Record<string, unknown> {
  const f = node.frame;
  const out: Record<string, unknown> = {
    from: f.from,
    gas: hexQuantity(f.gas),
    gasUsed: hexQuantity(node.gasUsed),
  };
  if (node.to !== undefined) out.to = node.to;
  out.input = hexBytes(f.input);
  if (node.output !== undefined && node.output.length > 0) out.output = hexBytes(node.output);
  if (node.error !== undefined) out.error = node.error;
  if (node.revertReason !== undefined && node.revertReason !== '') out.revertReason = node.revertReason;
  if (node.calls.length > 0) out.calls = node.calls.map(encode);
  if (node.logs.length > 0) out.logs = node.logs;
  if (f.value !== undefined) out.value = hexQuantity(f.value);
  out.type = f.type;
  return out;
}

const ERROR_SELECTOR = [0x08, 0xc3, 0x79, 0xa0];
const PANIC_SELECTOR = [0x4e, 0x48, 0x7b, 0x71];

const PANIC_REASONS: Record<string, string> = {
  '0': 'generic panic',
  '1': 'assert(false)',
  '17': 'arithmetic underflow or overflow',
  '18': 'division or modulo by zero',
  '33': 'enum overflow',
  '34': 'invalid encoded storage byte array accessed',
  '49': 'out-of-bounds array access; popping on an empty array',
  '50': 'out-of-bounds access of an array or bytesN',
  '65': 'out of memory',
  '81': 'uninitialized function',
};

function readWord(data: Uint8Array, at: number): bigint {
  let v = 0n;
  for (let i = at; i < at + 32; i++) v = (v << 8n) | BigInt(data[i]);
  return v;
}

function startsWith(data: Uint8Array, sel: number[]): boolean {
  return data[0] === sel[0] && data[1] === sel[1] && data[2] === sel[2] && data[3] === sel[3];
}

/** geth's abi.UnpackRevert: the reason of an Error(string) or Panic(uint256) revert, if well-formed. */
export function unpackRevert(output: Uint8Array): string | undefined {
  if (output.length < 4) return undefined;
  const body = output.subarray(4);
  if (startsWith(output, ERROR_SELECTOR)) {
    if (body.length < 32) return undefined;
    const offsetEnd = readWord(body, 0) + 32n;
    if (offsetEnd > BigInt(body.length)) return undefined;
    const start = Number(offsetEnd);
    const length = readWord(body, start - 32);
    if (offsetEnd + length > BigInt(body.length)) return undefined;
    return new TextDecoder('utf-8').decode(body.subarray(start, start + Number(length)));
  }
  if (startsWith(output, PANIC_SELECTOR)) {
    if (body.length < 32) return undefined;
    const code = readWord(body, 0);
    return PANIC_REASONS[code.toString()] ?? `unknown panic code: 0x${code.toString(16)}`;
  }
  return undefined;
}
