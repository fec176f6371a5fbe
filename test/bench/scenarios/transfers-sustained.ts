// The transfers scenario kept up for 3,000 transfers on a node of its own, started fresh for it:
// what a long-lived chain (a day of local development, a long script or test run without
// snapshots) sees once the first few hundred are behind it. Reported: the whole run, and its
// first and last 500 apart.

import { RpcClient, median, startNode, type BenchNode, type Scenario } from '../harness.js';
import { runTransfers } from '../chain.js';

const WINDOW = 500;

const scenario: Scenario = {
  name: 'transfers-sustained',
  description: 'a fresh node: deploy Token, then 3,000 sequential ERC20 transfers; the first and last 500 apart',
  async run(node) {
    const count = node.options.quick ? 1_000 : 3_000;
    // Its own instance, so the run starts cold as `transfers` does and the shared node's chain
    // stays as short as the other scenarios expect. A --target is used as it is.
    const fresh = node.spec ? await startNode(node.spec) : undefined;
    const target: BenchNode = fresh
      ? { ...node, url: fresh.url, pid: fresh.pid, chainId: fresh.chainId, rpc: new RpcClient(fresh.url), cache: new Map() }
      : node;
    try {
      const { lat, done } = await runTransfers(target, count);
      const last = count - 1;
      const firstMs = done[WINDOW - 1]!;
      const lastMs = done[last]! - done[last - WINDOW]!;
      return {
        throughput: { value: (count * 1000) / done[last]!, unit: 'tx/s' },
        'first 500': { value: (WINDOW * 1000) / firstMs, unit: 'tx/s' },
        'last 500': { value: (WINDOW * 1000) / lastMs, unit: 'tx/s' },
        'latency p50, last 500': { value: median(lat.subarray(count - WINDOW)), unit: 'ms' },
      };
    } finally {
      if (fresh) {
        target.rpc.close();
        await fresh.stop();
      }
    }
  },
};

export default scenario;
