/** What a JavaScript tracer is told about the transaction: geth's `ctx` for result(ctx, db), and which failures reach fault(). */
import type { TxEndContext } from './driver.js';
import type { TraceTx } from './hooks.js';
import { hexBytes } from './hex.js';

export const ZERO_ADDRESS = '0x' + '0'.repeat(40);

export interface JsTracerTarget extends TraceTx {
  isPrecompile(address: string): boolean;
}

/**
 * geth's ctx as JSON text's object: byte strings as 0x hex and big numbers as decimal text (the
 * tracer's side makes Uint8Arrays and bigInts of them).
 */
export function resultContext(t: JsTracerTarget, ctx: TxEndContext, topGas: bigint, elapsedMs: number): Record<string, unknown> {
  const top = ctx.top;
  const c: Record<string, unknown> = {
    type: t.type,
    from: t.from.toString(),
    to: t.to?.toString() ?? ctx.createdAddress?.toString() ?? ZERO_ADDRESS,
    input: hexBytes(t.input),
    gas: Number(t.gasLimit),
    gasUsed: Number(ctx.gasUsed),
    gasPrice: t.gasPrice.toString(),
    value: t.value.toString(),
    block: Number(t.blockNumber ?? 0n),
    output: hexBytes(top.output),
    time: goDuration(elapsedMs),
    intrinsicGas: Number(t.gasLimit - topGas),
  };
  if (t.coinbase !== undefined) c.coinbase = t.coinbase.toString();
  if (top.error !== undefined) c.error = top.error;
  if (t.blockHash !== undefined) {
    c.blockHash = hexBytes(t.blockHash);
    if (t.txHash !== undefined) {
      c.txIndex = t.txIndex ?? 0;
      c.txHash = hexBytes(t.txHash);
    }
  }
  return c;
}

/** Errors geth's interpreter returns after the opcode was traced (its OnFault). */
export function isExecutionFault(error: string): boolean {
  return (
    error === 'execution reverted' ||
    error === 'invalid jump destination' ||
    error.startsWith('invalid opcode') ||
    error === 'write protection' ||
    error === 'return data out of bounds'
  );
}

/** Go's time.Duration String() for a span in milliseconds. */
function goDuration(ms: number): string {
  if (ms < 0.001) return `${Math.round(ms * 1e6)}ns`;
  if (ms < 1) return `${+(ms * 1000).toFixed(3)}µs`;
  if (ms < 1000) return `${+ms.toFixed(6)}ms`;
  return `${+(ms / 1000).toFixed(9)}s`;
}
