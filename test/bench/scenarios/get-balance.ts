// eth_getBalance(account 0, latest) under closed-loop load: 64 in flight over 32 sockets.

import { type Scenario } from '../harness.js';
import { DEV_ADDRESS } from '../chain.js';
import { loadDurations, loadMetrics, runLoad } from '../load.js';

const scenario: Scenario = {
  name: 'get-balance',
  description: 'eth_getBalance, 64 in flight over 32 keep-alive sockets, ~3 s',
  async run(node) {
    const params = [DEV_ADDRESS, 'latest'];
    if (BigInt(await node.rpc.call<string>('eth_getBalance', params)) === 0n) {
      throw new Error('account 0 has no balance');
    }
    const r = await runLoad({
      url: node.url,
      body: node.rpc.encode('eth_getBalance', params),
      connections: 32,
      depth: 2,
      pid: node.pid,
      ...loadDurations(node.options.quick),
    });
    return loadMetrics(r);
  },
};

export default scenario;
