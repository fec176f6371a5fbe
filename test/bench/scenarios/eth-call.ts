// eth_call Token.balanceOf(account 0) at concurrency 8 (closed loop, 8 sockets).

import { type Scenario } from '../harness.js';
import { DEV_ADDRESS, ensureToken } from '../chain.js';
import { loadDurations, loadMetrics, runLoad } from '../load.js';

const scenario: Scenario = {
  name: 'eth-call',
  description: 'eth_call Token.balanceOf at concurrency 8 for ~3 s',
  async run(node) {
    const token = await ensureToken(node);
    const call = { to: token.address, data: token.iface.encodeFunctionData('balanceOf', [DEV_ADDRESS]) };
    // Sanity check once, with a real parse.
    const bal = await node.rpc.call<string>('eth_call', [call, 'latest']);
    if (BigInt(bal) === 0n) throw new Error('balanceOf(account 0) is zero');
    const r = await runLoad({
      url: node.url,
      body: node.rpc.encode('eth_call', [call, 'latest']),
      connections: 8,
      depth: 1,
      pid: node.pid,
      ...loadDurations(node.options.quick),
    });
    return loadMetrics(r, 'calls/s');
  },
};

export default scenario;
