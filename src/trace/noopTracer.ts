/** geth's noopTracer: hooks nothing, returns `{}`. */
import type { Tracer } from './driver.js';

export class NoopTracer implements Tracer {
  readonly ignoresSteps = true;

  result(): unknown {
    return {};
  }
}
