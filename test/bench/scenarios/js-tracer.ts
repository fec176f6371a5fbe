// debug_traceTransaction with a JavaScript tracer that counts opcodes by name, over the
// `tracing` scenario's ~6,300-step transaction (Callee.burn() with 106,000 gas). The tracer's
// step() runs once per opcode: on node-rpc on its sandboxed tracer thread, on anvil in its
// JavaScript engine. Round trip as a client sees it; the counts are checked to add up to the
// same step total on every call.

import { performance } from 'node:perf_hooks';
import type { BenchNode, Scenario } from '../harness.js';
import { burnTx } from './tracing.js';

const TRACER = `{
  counts: {},
  step: function (log, db) { var op = log.op.toString(); this.counts[op] = (this.counts[op] || 0) + 1; },
  fault: function (log, db) {},
  result: function (ctx, db) { return this.counts; }
}`;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

const scenario: Scenario = {
  name: 'js-tracer',
  description: 'debug_traceTransaction with a JavaScript opcode-counting tracer over a ~6,300-step transaction, round trip',
  async run(node: BenchNode) {
    const rpc = node.rpc;
    const hash = await burnTx(rpc);
    const config = { tracer: TRACER };
    const steps = total(await rpc.call<Record<string, number>>('debug_traceTransaction', [hash, config]));
    const rounds = node.options.quick ? 5 : 30;
    for (let i = 0; i < 3; i++) await rpc.call('debug_traceTransaction', [hash, config]);
    const times: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const t0 = performance.now();
      const counts = await rpc.call<Record<string, number>>('debug_traceTransaction', [hash, config]);
      times.push(performance.now() - t0);
      if (total(counts) !== steps) throw new Error(`step count changed: ${total(counts)} vs ${steps}`);
    }
    return {
      'trace p50': { value: median(times), unit: 'ms' },
      'trace min': { value: Math.min(...times), unit: 'ms' },
      steps: { value: steps, unit: 'steps' },
    };
  },
};

export default scenario;
