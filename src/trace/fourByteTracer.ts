/** geth's native 4byteTracer: counts of `selector-calldatasize` over the calls of a transaction. */
import type { Frame, Tracer } from './driver.js';
import { hexRaw, sortedObject } from './hex.js';

export class FourByteTracer implements Tracer {
  private readonly ids = new Map<string, number>();

  /** `isPrecompile(address)` tells which call targets are precompiles (skipped, as geth does). */
  constructor(private readonly isPrecompile: (address: string) => boolean) {}

  enter(frame: Frame): void {
    const t = frame.type;
    if (t !== 'CALL' && t !== 'CALLCODE' && t !== 'DELEGATECALL' && t !== 'STATICCALL') return;
    if (frame.input.length < 4) return;
    if (frame.to !== undefined && this.isPrecompile(frame.to)) return;
    const key = `0x${hexRaw(frame.input, 0, 4)}-${frame.input.length - 4}`;
    this.ids.set(key, (this.ids.get(key) ?? 0) + 1);
  }

  result(): unknown {
    return sortedObject(this.ids);
  }
}
