/** geth's muxTracer: runs several tracers at once, result `{tracerName: result}`. */
import type { Frame, FrameResult, LogEvent, StepView, Tracer, TxEndContext, TxStartContext } from './driver.js';

export class MuxTracer implements Tracer {
  readonly asyncSteps: boolean;
  readonly ignoresSteps: boolean;
  private readonly list: Tracer[];

  /** `tracers` in the order geth marshals them (sorted by name). */
  constructor(private readonly tracers: Array<{ key: string; tracer: Tracer }>) {
    this.list = tracers.map((t) => t.tracer);
    this.asyncSteps = this.list.some((t) => t.asyncSteps === true);
    this.ignoresSteps = this.list.every((t) => t.ignoresSteps === true);
  }

  async txStart(ctx: TxStartContext): Promise<void> {
    for (const t of this.list) await t.txStart?.(ctx);
  }

  enter(frame: Frame): void {
    for (const t of this.list) t.enter?.(frame);
  }

  exit(frame: Frame, result: FrameResult): void {
    for (const t of this.list) t.exit?.(frame, result);
  }

  opcode(step: StepView, cost: bigint, frame: Frame): Promise<void> | void {
    let chain: Promise<void> | undefined;
    for (const t of this.list) {
      if (t.opcode === undefined) continue;
      if (chain === undefined) {
        const r = t.opcode(step, cost, frame);
        if (r !== undefined) chain = r;
      } else {
        chain = chain.then(() => t.opcode!(step, cost, frame));
      }
    }
    return chain;
  }

  async fault(frame: Frame, error: string): Promise<void> {
    for (const t of this.list) await t.fault?.(frame, error);
  }

  log(log: LogEvent, frame: Frame): void {
    for (const t of this.list) t.log?.(log, frame);
  }

  async txEnd(ctx: TxEndContext): Promise<void> {
    for (const t of this.list) await t.txEnd?.(ctx);
  }

  result(): unknown {
    const out: Record<string, unknown> = {};
    for (const { key, tracer } of this.tracers) out[key] = tracer.result();
    return out;
  }
}
