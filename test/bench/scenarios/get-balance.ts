// eth_getBalance(account 0, latest) under closed-loop load: 64 in flight over 32 sockets; then the
// same load against a bare node:http server answering the same balance (the floor of Node's HTTP).

import { type Scenario } from '../harness.js';
import { DEV_ADDRESS } from '../chain.js';
import { bareLoad, loadDurations, loadMetrics, runLoad } from '../load.js';

const scenario: Scenario = {
  name: 'get-balance',
  description: 'eth_getBalance, 64 in flight over 32 keep-alive sockets, ~3 s; then a bare node:http server under the same load',
  async run(node) {
    const params = [DEV_ADDRESS, 'latest'];
    const balance = await node.rpc.call<string>('eth_getBalance', params);
    if (BigInt(balance) === 0n) throw new Error('account 0 has no balance');
    const load = { body: node.rpc.encode('eth_getBalance', params), connections: 32, depth: 2, ...loadDurations(node.options.quick) };
    const r = await runLoad({ ...load, url: node.url, pid: node.pid });
    return loadMetrics(r, 'req/s', await bareLoad(load, balance));
  },
};

export default scenario;
