// A contract developer's test suite, one request in flight at a time, on a node of its own started
// fresh for the scenario (see ../suite.ts for the workload): per test, and per method.

import { RpcClient, median, startNode, type Scenario } from '../harness.js';
import { runSuite, suiteMetrics } from '../suite.js';

const scenario: Scenario = {
  name: 'suite',
  description: 'a fresh node: 200 suite-shaped tests, one request at a time (revert/snapshot, 2 transfers, estimate, 4 calls, logs, block)',
  async run(node) {
    const tests = node.options.quick ? 50 : 200;
    // A fresh instance, as a suite's own node would be; a --target is used as it is.
    const fresh = node.spec ? await startNode(node.spec) : undefined;
    const rpc = fresh ? new RpcClient(fresh.url) : node.rpc;
    try {
      return suiteMetrics(await runSuite(rpc, fresh?.chainId ?? node.chainId, tests), median);
    } finally {
      if (fresh) {
        rpc.close();
        await fresh.stop();
      }
    }
  },
};

export default scenario;
