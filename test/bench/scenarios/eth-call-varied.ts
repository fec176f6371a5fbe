// eth_call Token.balanceOf of 1,000 different holders in rotation at concurrency 8: no cache of
// identical requests can answer it; every call reads another storage slot. Then the same load
// against a bare node:http server answering the same word (the floor of Node's HTTP).

import { type Scenario } from '../harness.js';
import { DEV_ADDRESS, ensureToken, recipient } from '../chain.js';
import { bareLoad, loadDurations, loadMetrics, runLoad } from '../load.js';

const HOLDERS = 1_000;

const scenario: Scenario = {
  name: 'eth-call-varied',
  description: 'eth_call Token.balanceOf of 1,000 holders in rotation at concurrency 8 for ~3 s',
  async run(node) {
    const token = await ensureToken(node);
    const holders = [DEV_ADDRESS, ...Array.from({ length: HOLDERS - 1 }, (_, i) => recipient(i))];
    const calls = holders.map((holder) => ({ to: token.address, data: token.iface.encodeFunctionData('balanceOf', [holder]) }));
    // Sanity check once, with a real parse: the first holder has the supply.
    const first = await node.rpc.call<string>('eth_call', [calls[0], 'latest']);
    if (BigInt(first) === 0n) throw new Error('balanceOf(account 0) is zero');
    const load = { body: calls.map((call) => node.rpc.encode('eth_call', [call, 'latest'])), connections: 8, depth: 1, ...loadDurations(node.options.quick) };
    const r = await runLoad({ ...load, url: node.url, pid: node.pid });
    return loadMetrics(r, 'calls/s', await bareLoad(load, first));
  },
};

export default scenario;
