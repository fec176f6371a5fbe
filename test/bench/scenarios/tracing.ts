// debug_traceTransaction with the default struct logger of a ~6,300-step
// transaction: Callee.burn() (an SLOAD/SSTORE loop) with a 106,000 gas limit,
// which loops until it runs out of gas. Round trip as a client sees it:
// re-execution, struct logs, serialization, transfer and parse (~0.8 MB).
//
// anvil returns empty struct logs unless started with --steps-tracing, so for
// a spawned anvil the scenario starts a second instance with that flag.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { RpcClient, SkipScenario, repoRoot, startNode, type BenchNode, type RunningNode, type Scenario } from '../harness.js';
import { DEV_ADDRESS, waitReceipt } from '../chain.js';

const BURN = '0x44df8e70';
const GAS = 106_000;

interface StructTrace {
  gas: number;
  failed: boolean;
  structLogs: unknown[];
}

/** Deploy Callee and send its burn() with 106,000 gas; the transaction's hash (the js-tracer scenario traces it too). */
export async function burnTx(rpc: RpcClient): Promise<string> {
  const { bytecode } = JSON.parse(readFileSync(join(repoRoot(), 'fixtures', 'artifacts', 'Callee.json'), 'utf8')) as { bytecode: string };
  const deploy = await rpc.call<string>('eth_sendTransaction', [{ from: DEV_ADDRESS, data: bytecode, gas: '0x7a120' }]);
  const callee = (await waitReceipt(rpc, deploy)).contractAddress;
  if (!callee) throw new Error('Callee was not deployed');
  const hash = await rpc.call<string>('eth_sendTransaction', [{ from: DEV_ADDRESS, to: callee, data: BURN, gas: '0x' + GAS.toString(16) }]);
  await waitReceipt(rpc, hash);
  return hash;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

const scenario: Scenario = {
  name: 'tracing',
  description: 'debug_traceTransaction (default struct logger) of a ~6,300-step transaction, round trip',
  async run(node: BenchNode) {
    let rpc = node.rpc;
    let extra: RunningNode | undefined;
    try {
      let hash = await burnTx(rpc);
      let first = await rpc.call<StructTrace>('debug_traceTransaction', [hash]);
      if (first.structLogs.length === 0) {
        if (node.label !== 'anvil' || !node.spec) throw new SkipScenario('the node returns no struct logs');
        const spec = node.spec;
        extra = await startNode({ ...spec, args: (port) => [...spec.args(port), '--steps-tracing'] });
        rpc = new RpcClient(extra.url);
        hash = await burnTx(rpc);
        first = await rpc.call<StructTrace>('debug_traceTransaction', [hash]);
      }
      const steps = first.structLogs.length;
      const rounds = node.options.quick ? 5 : 30;
      // Warm-up, then measured rounds.
      for (let i = 0; i < 3; i++) await rpc.call('debug_traceTransaction', [hash]);
      const times: number[] = [];
      for (let i = 0; i < rounds; i++) {
        const t0 = performance.now();
        const t = await rpc.call<StructTrace>('debug_traceTransaction', [hash]);
        times.push(performance.now() - t0);
        if (t.structLogs.length !== steps) throw new Error(`step count changed: ${t.structLogs.length} vs ${steps}`);
      }
      return {
        'trace p50': { value: median(times), unit: 'ms' },
        'trace min': { value: Math.min(...times), unit: 'ms' },
        steps: { value: steps, unit: 'steps' },
      };
    } finally {
      if (extra) {
        rpc.close();
        await extra.stop();
      }
    }
  },
};

export default scenario;
