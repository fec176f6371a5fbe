// A contract developer's test suite, one request in flight at a time, on a node of its own started
// fresh for the scenario (see ../suite.ts for the workload): per test, and per method; then a whole
// suite of 1,000 tests on another fresh node, its mean per test.

import type { Scenario } from '../harness.js';
import { longTests, suiteOverHttp } from '../suite.js';

const scenario: Scenario = {
  name: 'suite',
  description: 'a fresh node: 200 suite-shaped tests, one request at a time (revert/snapshot, 2 transfers, estimate, 4 calls, logs, block); then 1,000 on another',
  async run(node) {
    return suiteOverHttp(node, node.options.quick ? 50 : 200, { long: longTests(node.options.quick) });
  },
};

export default scenario;
