// eth_call Token.balanceOf of 1,000 different holders in rotation at concurrency 8: no cache of
// identical requests can answer it; every call reads another storage slot.

import { type Scenario } from '../harness.js';
import { DEV_ADDRESS, ensureToken, recipient } from '../chain.js';
import { loadDurations, loadMetrics, runLoad } from '../load.js';

const HOLDERS = 1_000;

const scenario: Scenario = {
  name: 'eth-call-varied',
  description: 'eth_call Token.balanceOf of 1,000 holders in rotation at concurrency 8 for ~3 s',
  async run(node) {
    const token = await ensureToken(node);
    const holders = [DEV_ADDRESS, ...Array.from({ length: HOLDERS - 1 }, (_, i) => recipient(i))];
    const calls = holders.map((holder) => ({ to: token.address, data: token.iface.encodeFunctionData('balanceOf', [holder]) }));
    // Sanity check once, with a real parse: the first holder has the supply.
    if (BigInt(await node.rpc.call<string>('eth_call', [calls[0], 'latest'])) === 0n) throw new Error('balanceOf(account 0) is zero');
    const r = await runLoad({
      url: node.url,
      body: calls.map((call) => node.rpc.encode('eth_call', [call, 'latest'])),
      connections: 8,
      depth: 1,
      pid: node.pid,
      ...loadDurations(node.options.quick),
    });
    return loadMetrics(r, 'calls/s');
  },
};

export default scenario;
