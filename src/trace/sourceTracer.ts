/**
 * sourceTracer (node-rpc's own): the call tree, each frame with where in the Solidity source it
 * began (`entry`), where it ended (`exit`: the RETURN, STOP or failing opcode), and for a
 * sub-call where its caller made it (`callSite`); and for a failed transaction the `revert`:
 * its message as eth_call would give it, the stack innermost first, and the source lines around
 * the innermost frame. Locations come from the artifacts the node was started with; without
 * them every location is null but the program counters are there.
 */
import { revertMessage } from '../chain/exec/revertData.js';
import { failureMessage } from '../chain/exec/explain.js';
import { StackRecorder } from '../chain/exec/failureStack.js';
import type { SourceFrame, SourceLocator, SourceStack } from '../chain/core/sources.js';
import type { Frame, FrameResult, StepView, Tracer } from './driver.js';
import { hexBytes, hexQuantity } from './hex.js';

const NO_SOURCES: SourceLocator = { mapped: 0, code: () => undefined, snippet: () => [], describeError: () => undefined };

/** Where a frame entered, exited or failed, as the tracer reports it. */
export interface Place {
  pc: number;
  contract: string | null;
  function: string | null;
  file: string | null;
  line: number | null;
  column: number | null;
  code: string | null;
}

interface Node {
  type: string;
  from: string;
  to?: string;
  value?: string;
  gas: string;
  gasUsed: string;
  input: string;
  output?: string;
  error?: string;
  contract: string | null;
  callSite?: Place;
  entry: Place | null;
  exit: Place | null;
  calls: Node[];
  /** A failure its caller handled (try/catch, a low-level call's `ok`): its message, stack and source. */
  caught?: Failure;
}

interface Failure {
  message: string;
  stack: Place[];
  snippet: Array<{ line: number; text: string }>;
}

/** A failed sub-call, until its caller exits: caught, or passed on (its innermost frame then heads the caller's stack). */
interface Candidate {
  node: Node;
  first: SourceFrame;
  failure: Failure;
}

function place(f: SourceFrame | undefined, pc: number): Place {
  const l = f?.location;
  return {
    pc: f?.pc ?? pc,
    contract: l?.contract ?? f?.contract ?? null,
    function: l?.function ?? null,
    file: l?.file ?? null,
    line: l?.line ?? null,
    column: l?.column ?? null,
    code: l?.text ?? null,
  };
}

export class SourceTracer implements Tracer {
  private readonly recorder: StackRecorder;
  private readonly open: Node[] = [];
  private root: Node | undefined;
  private topOutput: Uint8Array = new Uint8Array();
  private topError: string | undefined;
  /** Per open frame, its failed sub-calls with a Solidity stack. */
  private readonly failed: Candidate[][] = [];

  constructor(private readonly locator: SourceLocator = NO_SOURCES) {
    this.recorder = new StackRecorder(locator);
  }

  enter(frame: Frame): void {
    const parent = this.open[this.open.length - 1];
    const caller = this.recorder.live[this.recorder.live.length - 1];
    const callSite = parent && caller ? place(this.recorder.site(), caller.pc) : undefined;
    this.recorder.enter(frame.msg, frame.type === 'CREATE' || frame.type === 'CREATE2');
    const node: Node = {
      type: frame.type,
      from: frame.from,
      ...(frame.to !== undefined ? { to: frame.to } : {}),
      ...(frame.value !== undefined ? { value: hexQuantity(frame.value) } : {}),
      gas: hexQuantity(frame.gas),
      gasUsed: '0x0',
      input: hexBytes(frame.input),
      contract: null,
      ...(callSite ? { callSite } : {}),
      entry: null,
      exit: null,
      calls: [],
    };
    if (parent) parent.calls.push(node);
    else this.root = node;
    this.open.push(node);
    this.failed.push([]);
  }

  opcode(step: StepView): void {
    this.recorder.step(step.pc, step.opcode.code, step.stack[step.stack.length - 1]);
    const node = this.open[this.open.length - 1];
    if (!node || node.entry !== null) return;
    // The entry: the first opcode inside a function of the source (past the dispatcher).
    const site = this.recorder.site(step.pc);
    if (site?.location?.function !== undefined) node.entry = place(site, step.pc);
    else if (node.contract === null && site) node.contract = site.contract;
  }

  exit(frame: Frame, result: FrameResult): void {
    const node = this.open.pop();
    if (!node) return;
    const live = this.recorder.live[this.recorder.live.length - 1];
    const src = live ? this.recorder.sourceOf(live) : undefined;
    if (src) {
      node.contract = src.name;
      const site = this.recorder.site();
      node.exit = place(site, live!.pc);
    } else if (live && live.msg?.code instanceof Uint8Array && live.msg.code.length > 0) {
      node.exit = place(undefined, live.pc);
    }
    node.gasUsed = hexQuantity(result.gasUsed);
    if (result.output.length > 0) node.output = hexBytes(result.output);
    if (result.error !== undefined) node.error = result.error;
    const evmError = result.error === undefined ? undefined : result.error === 'execution reverted' ? 'revert' : result.error;
    const code = frame.msg?.code;
    const stack = this.recorder.exit(evmError, result.output, code instanceof Uint8Array ? code : undefined);
    // Sub-calls that failed and whose failure this frame did not pass on were caught here.
    for (const c of this.failed.pop() ?? []) if (stack?.frames[0] !== c.first) c.node.caught = c.failure;
    if (evmError !== undefined && stack !== undefined && stack.frames.length > 0 && this.open.length > 0) {
      const full: SourceStack = { ...stack, frames: [...stack.frames, ...this.recorder.callSites()] };
      const base = evmError === 'revert' ? revertMessage(result.output) : evmError;
      this.failed[this.failed.length - 1]!.push({ node, first: stack.frames[0]!, failure: this.failure(base, full) });
    }
    if (this.open.length === 0) {
      this.topOutput = result.output;
      this.topError = evmError;
    }
  }

  result(): unknown {
    if (!this.root) return null;
    const stack = this.recorder.outcome;
    if (this.topError === undefined || stack === undefined || stack.frames.length === 0) return this.root;
    return { ...this.root, revert: this.revert(stack) };
  }

  private revert(stack: SourceStack): Failure {
    return this.failure(this.topError === 'revert' ? revertMessage(this.topOutput) : this.topError!, stack);
  }

  private failure(base: string, stack: SourceStack): Failure {
    const inner = stack.frames[0]?.location;
    return {
      message: failureMessage(base, stack, this.locator),
      stack: stack.frames.map((f) => place(f, f.pc)),
      snippet: inner ? this.locator.snippet(inner.file, inner.line, 3) : [],
    };
  }
}
