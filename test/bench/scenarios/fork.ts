// Forking: a second node-rpc process is the upstream (loopback), holding a ForkProbe contract with
// 100 filled slots and 100 funded accounts. A fork of it (the node under test, started with
// --fork-url / anvil --fork-url) answers `probe(100, accounts)`: the first call reads 100 slots and
// 100 accounts it never saw from the upstream; the same call again is answered from the fork's
// cache, first as calls 1-100 of a fresh fork (start-up and JIT warm-up included), then as calls
// 201-300 of the same process (steady state). Cold calls each run on a fresh fork; the upstream
// request count comes from a fork behind a counting proxy (its latency is not measured).

import { performance } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Interface } from 'ethers';
import { RpcClient, SkipScenario, median, nodeRpcSpec, percentile, repoRoot, startNode, type NodeSpec, type Scenario } from '../harness.js';
import { DEV_ADDRESS, waitReceipt } from '../chain.js';
import { rpcProxy } from '../../support/proxy.js';

const SLOTS = 100;
const ACCOUNTS = 100;

function probeArtifact(): { abi: any[]; bytecode: string } {
  return JSON.parse(readFileSync(join(repoRoot(), 'fixtures', 'artifacts', 'ForkProbe.json'), 'utf8')) as { abi: any[]; bytecode: string };
}

/** Deploy the probe, fill its slots, fund the accounts; returns the eth_call to measure and the fork block. */
async function prepareUpstream(rpc: RpcClient): Promise<{ call: object; block: string }> {
  const a = probeArtifact();
  const iface = new Interface(a.abi);
  const deployHash = await rpc.call<string>('eth_sendTransaction', [{ from: DEV_ADDRESS, data: a.bytecode }]);
  const probe = (await waitReceipt(rpc, deployHash)).contractAddress!;
  const fillHash = await rpc.call<string>('eth_sendTransaction', [{ from: DEV_ADDRESS, to: probe, data: iface.encodeFunctionData('fill', [SLOTS]) }]);
  await waitReceipt(rpc, fillHash);
  const accounts: string[] = [];
  for (let i = 1; i <= ACCOUNTS; i++) {
    const account = '0x' + (0xf0_0000n + BigInt(i)).toString(16).padStart(40, '0');
    await rpc.call('anvil_setBalance', [account, '0x' + BigInt(i).toString(16)]);
    accounts.push(account);
  }
  await rpc.call('evm_mine');
  const block = await rpc.call<string>('eth_blockNumber');
  const data = iface.encodeFunctionData('probe', [SLOTS, accounts]);
  return { call: { to: probe, data }, block };
}

/** The node under test, forking `url` at `block`. */
function forkSpec(spec: NodeSpec, url: string, block: string): NodeSpec {
  const extra = ['--fork-url', url, '--fork-block-number', String(BigInt(block))];
  // anvil keeps fork state on disk per chain id and block by default: every fork here must start cold.
  if (spec.label === 'anvil') extra.push('--no-storage-caching');
  return { ...spec, args: (port) => [...spec.args(port), ...extra] };
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

const scenario: Scenario = {
  name: 'fork',
  description: `fork of a node-rpc upstream: first eth_call touching ${SLOTS} slots + ${ACCOUNTS} accounts (cold), the same call again (cached)`,
  async run(node) {
    if (!node.spec) throw new SkipScenario('node not started by the harness');
    const upstream = await startNode(nodeRpcSpec());
    const upRpc = new RpcClient(upstream.url);
    try {
      const { call, block } = await prepareUpstream(upRpc);
      const spec = forkSpec(node.spec, upstream.url, block);
      const colds: number[] = [];
      const warms: number[] = [];
      const steadies: number[] = [];
      const rounds = node.options.quick ? 1 : 3;
      // Calls 1-100 right after start-up include the JIT's warm-up on a JS node; calls 201-300 show
      // the steady state of the same process.
      const [first, skip, steady] = node.options.quick ? [20, 20, 20] : [100, 100, 100];
      let expected: string | undefined;
      for (let r = 0; r < rounds; r++) {
        const fork = await startNode(spec);
        const rpc = new RpcClient(fork.url);
        try {
          let result = '';
          colds.push(await timed(async () => (result = await rpc.call<string>('eth_call', [call, 'latest']))));
          expected ??= result;
          if (result !== expected) throw new Error('probe answers differ between runs');
          for (let i = 0; i < first + skip + steady; i++) {
            const ms = await timed(() => rpc.call('eth_call', [call, 'latest']));
            if (i < first) warms.push(ms);
            else if (i >= first + skip) steadies.push(ms);
          }
        } finally {
          rpc.close();
          await fork.stop();
        }
      }
      // Upstream requests of the first call, counted by a proxy (latency not measured).
      const proxy = await rpcProxy(upstream.url);
      const counted = await startNode(forkSpec(node.spec, proxy.url, block));
      const rpc = new RpcClient(counted.url);
      let requests: number;
      try {
        // Start-up traffic (chain id, fork block, dev accounts) is not the call's.
        await rpc.call('eth_blockNumber');
        const before = proxy.requests;
        await rpc.call('eth_call', [call, 'latest']);
        requests = proxy.requests - before;
      } finally {
        rpc.close();
        await counted.stop();
        await proxy.close();
      }
      return {
        'first call (cold, median)': { value: median(colds), unit: 'ms' },
        'same call again (median)': { value: median(warms), unit: 'ms' },
        'same call again (p99)': { value: percentile(warms, 99), unit: 'ms' },
        [`same call, calls ${first + skip + 1}-${first + skip + steady} (median)`]: { value: median(steadies), unit: 'ms' },
        'upstream HTTP requests, first call': { value: requests, unit: 'requests' },
      };
    } finally {
      upRpc.close();
      await upstream.stop();
    }
  },
};

export default scenario;
