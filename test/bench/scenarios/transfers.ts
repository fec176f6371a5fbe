// Deploy the Token fixture, then N sequential ERC20 transfers, each
// eth_sendRawTransaction followed by eth_getTransactionReceipt (polled until
// mined). All transactions are signed up front so signing is not measured.

import { median, percentile, type Scenario } from '../harness.js';
import { runTransfers } from '../chain.js';

const scenario: Scenario = {
  name: 'transfers',
  description: 'deploy Token, then 500 sequential ERC20 transfers (sendRawTransaction + receipt)',
  async run(node) {
    const count = node.options.quick ? 100 : 500;
    const { lat, done, polls } = await runTransfers(node, count);
    return {
      throughput: { value: (count * 1000) / done[count - 1]!, unit: 'tx/s' },
      'latency p50': { value: median(lat), unit: 'ms' },
      'latency p99': { value: percentile(lat, 99), unit: 'ms' },
      'receipt polls': { value: polls / count, unit: 'per tx' },
    };
  },
};

export default scenario;
