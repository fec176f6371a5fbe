// Mining many empty blocks at once (anvil_mine): the call itself, the first read of the new
// head, and for a million blocks the RSS growth and the cost of the first read deep inside the
// run (its hashes are computed then, or in the background meanwhile). Every block read is checked
// against its neighbours (number, parentHash) and fetched again by hash. The chain is restored
// with evm_revert afterwards.

import { performance } from 'node:perf_hooks';
import { RpcClient, readRssMiB, type BenchNode, type Metrics, type Scenario } from '../harness.js';
import { DEV_ADDRESS, waitReceipt } from '../chain.js';

interface Block {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
}

const hex = (n: number) => '0x' + n.toString(16);

async function timed<T>(f: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const r = await f();
  return [r, performance.now() - t0];
}

/** Block n by number, checked against its parent and against a lookup by hash. */
async function checkedBlock(node: BenchNode, n: number): Promise<Block> {
  const b = await node.rpc.call<Block>('eth_getBlockByNumber', [hex(n), false]);
  const parent = await node.rpc.call<Block>('eth_getBlockByNumber', [hex(n - 1), false]);
  if (Number(b.number) !== n || b.parentHash !== parent.hash) throw new Error(`block ${n} does not link to block ${n - 1}`);
  if (BigInt(b.timestamp) < BigInt(parent.timestamp)) throw new Error(`block ${n} is earlier than its parent`);
  const again = await node.rpc.call<Block>('eth_getBlockByHash', [b.hash, false]);
  if (again.hash !== b.hash || again.number !== b.number) throw new Error(`block ${n} is not found by its hash`);
  return b;
}

const scenario: Scenario = {
  name: 'mining',
  description: 'anvil_mine of 1,000, 10,000 and 1,000,000 empty blocks: call time, first reads, RSS growth',
  async run(node) {
    const out: Metrics = {};
    // Mining calls may take long on a node that builds every block (anvil: about 1 ms a block here).
    const slow = new RpcClient(node.url, { timeoutMs: 600_000 });
    const snap = await node.rpc.call<string>('evm_snapshot');
    try {
      let start = Number(await node.rpc.call<string>('eth_blockNumber'));
      const [, tiny] = await timed(() => slow.call('anvil_mine', [hex(1_000)]));
      out['mine 1,000: call'] = { value: tiny, unit: 'ms' };
      start += 1_000;
      // 10,000 blocks take over a minute on a node that builds every block: not in a quick run.
      if (node.options.quick && tiny > 200) return out;
      const [, small] = await timed(() => slow.call('anvil_mine', [hex(10_000)]));
      out['mine 10,000: call'] = { value: small, unit: 'ms' };
      const [, head] = await timed(() => checkedBlock(node, start + 10_000));
      out['then latest block'] = { value: head, unit: 'ms' };
      if (Number(await node.rpc.call<string>('eth_blockNumber')) !== start + 10_000) throw new Error('wrong block count');

      // A million blocks only where 10,000 took well under a second (anvil needs ~100 µs a block).
      const big = node.options.quick ? 100_000 : 1_000_000;
      if (small < 500) {
        const rss0 = node.pid ? readRssMiB(node.pid) : undefined;
        const [, call] = await timed(() => slow.call('anvil_mine', [hex(big)]));
        out[`mine ${big.toLocaleString('en')}: call`] = { value: call, unit: 'ms' };
        if (rss0 !== undefined) out['RSS growth after the call'] = { value: readRssMiB(node.pid!) - rss0, unit: 'MiB' };
        const top = start + 10_000 + big;
        if (Number(await node.rpc.call<string>('eth_blockNumber')) !== top) throw new Error('wrong block count');
        const [, deep] = await timed(() => checkedBlock({ ...node, rpc: slow }, start + 10_000 + big / 2));
        out['first read of the middle block'] = { value: deep, unit: 'ms' };
        const [, last] = await timed(() => checkedBlock(node, top));
        out['then latest block '] = { value: last, unit: 'ms' };
        const [, again] = await timed(() => checkedBlock(node, start + 10_000 + 12_345));
        out['a random block once hashed'] = { value: again, unit: 'ms' };
        const [, tx] = await timed(async () => {
          const hash = await node.rpc.call<string>('eth_sendTransaction', [{ from: DEV_ADDRESS, to: DEV_ADDRESS, value: '0x1' }]);
          await waitReceipt(node.rpc, hash);
          await checkedBlock(node, top + 1);
        });
        out['then a transaction on top'] = { value: tx, unit: 'ms' };
        if (rss0 !== undefined) out['RSS growth, all hashed'] = { value: readRssMiB(node.pid!) - rss0, unit: 'MiB' };
      }
    } finally {
      await slow.call('evm_revert', [snap]);
      slow.close();
    }
    return out;
  },
};

export default scenario;
