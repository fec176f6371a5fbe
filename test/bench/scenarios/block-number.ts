// eth_blockNumber under closed-loop load: 64 requests in flight over 32 keep-alive sockets.

import { type Scenario } from '../harness.js';
import { loadDurations, loadMetrics, runLoad } from '../load.js';

const scenario: Scenario = {
  name: 'block-number',
  description: 'eth_blockNumber, 64 in flight over 32 keep-alive sockets, ~3 s',
  async run(node) {
    await node.rpc.call<string>('eth_blockNumber');
    const r = await runLoad({
      url: node.url,
      body: node.rpc.encode('eth_blockNumber'),
      connections: 32,
      depth: 2,
      pid: node.pid,
      ...loadDurations(node.options.quick),
    });
    return loadMetrics(r);
  },
};

export default scenario;
