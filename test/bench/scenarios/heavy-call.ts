// An EVM-bound eth_call: Heavy.hashLoop(20000) chains 20,000 keccak256 hashes (about 4.6 million
// gas, some 600,000 instructions). Round trip as a client sees it, sequential.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Interface } from 'ethers';
import { median, repoRoot, type Scenario } from '../harness.js';
import { DEV_ADDRESS, waitReceipt } from '../chain.js';

const ITERATIONS = 20_000;

const scenario: Scenario = {
  name: 'heavy-call',
  description: 'eth_call of a 20,000-iteration keccak256 loop (Heavy.hashLoop), sequential round trips',
  async run(node) {
    const artifact = JSON.parse(readFileSync(join(repoRoot(), 'fixtures', 'artifacts', 'Heavy.json'), 'utf8')) as { abi: [], bytecode: string };
    const deploy = await node.rpc.call<string>('eth_sendTransaction', [{ from: DEV_ADDRESS, data: artifact.bytecode, gas: '0x7a120' }]);
    const address = (await waitReceipt(node.rpc, deploy)).contractAddress;
    if (!address) throw new Error('Heavy was not deployed');
    const iface = new Interface(artifact.abi);
    const call = [{ to: address, data: iface.encodeFunctionData('hashLoop', [ITERATIONS]), gas: '0x2faf080' }, 'latest'];
    const first = await node.rpc.call<string>('eth_call', call);
    if (/^0x0*$/.test(first)) throw new Error('hashLoop returned zero');
    const rounds = node.options.quick ? 5 : 30;
    for (let i = 0; i < 3; i++) await node.rpc.call('eth_call', call);
    const times: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const t0 = performance.now();
      const h = await node.rpc.call<string>('eth_call', call);
      times.push(performance.now() - t0);
      if (h !== first) throw new Error('hashLoop answered differently');
    }
    return {
      'call p50': { value: median(times), unit: 'ms' },
      'call min': { value: Math.min(...times), unit: 'ms' },
    };
  },
};

export default scenario;
