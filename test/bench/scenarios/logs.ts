// eth_getLogs on a long chain: 100,000 blocks (10,000 with --quick) built with anvil_mine, with
// the Events fixture emitting
//   - a handful (5) of Ping events spread over the whole range, one every fifth of it, and
//   - 10,000 Pong events (10 transactions of many(1000)) at the end.
// Measured, as round trips a client sees (request, search, serialization, transfer of the whole
// body; every answer's log count is checked):
//   - the handful, by address + event topic, over the whole range;
//   - the handful by topic only (no address), over the whole range;
//   - the 10,000 Pongs, by address + topic, over the whole range.
// The time to build the chain is reported too. The chain is restored with evm_revert afterwards.
//
// anvil builds every empty block of anvil_mine, at a cost per block that grows with the chain
// (here: 10,000 blocks took 107 s, the next 10,000 163 s, the next 176 s, so 100,000 would take
// hours). For a spawned anvil the scenario therefore starts a second instance with
// --prune-history (no state kept for old blocks; blocks, receipts and logs are all kept, and
// eth_getLogs is unaffected), which mines at a steady ~2-5 ms a block.

import { performance } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Interface, id as topicOf } from 'ethers';
import { RpcClient, median, percentile, repoRoot, startNode, type Metrics, type RunningNode, type Scenario } from '../harness.js';
import { DEV_ADDRESS, waitReceipt } from '../chain.js';

const hex = (n: number) => '0x' + n.toString(16);
const PING = topicOf('Ping(address,uint256,bytes32,string)');
const PONG = topicOf('Pong(uint256)');
const HANDFUL = 5;
const MANY_TXS = 10;
const PER_TX = 1_000;

interface Events {
  abi: never[];
  bytecode: string;
}

async function send(rpc: RpcClient, tx: Record<string, string>): Promise<{ contractAddress?: string | null; blockNumber?: string }> {
  const hash = await rpc.call<string>('eth_sendTransaction', [{ from: DEV_ADDRESS, ...tx }]);
  const r = await waitReceipt(rpc, hash, 120_000);
  if (r.status !== '0x1') throw new Error(`transaction ${hash} failed`);
  return r;
}

/** Round trips of one pre-encoded eth_getLogs body; the first answer is parsed and its length checked. */
async function timeQuery(rpc: RpcClient, filter: object, expected: number, rounds: number): Promise<number[]> {
  const first = await rpc.call<unknown[]>('eth_getLogs', [filter]);
  if (first.length !== expected) throw new Error(`eth_getLogs answered ${first.length} logs, expected ${expected}`);
  const body = rpc.encode('eth_getLogs', [filter]);
  const size = (await rpc.post(body)).length;
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    const out = await rpc.post(body);
    times.push(performance.now() - t0);
    if (out.length !== size) throw new Error('eth_getLogs answer changed between rounds');
  }
  return times;
}

const scenario: Scenario = {
  name: 'logs',
  description: 'eth_getLogs over 100,000 blocks: 5 matches (by address+topic, by topic), 10,000 matches (anvil: --prune-history)',
  async run(node) {
    const blocks = node.options.quick ? 10_000 : 100_000;
    const rounds = node.options.quick ? 10 : 50;
    let extra: RunningNode | undefined;
    let url = node.url;
    if (node.label === 'anvil' && node.spec) {
      const spec = node.spec;
      extra = await startNode({ ...spec, args: (port) => [...spec.args(port), '--prune-history'] });
      url = extra.url;
    }
    const rpc = extra ? new RpcClient(url) : node.rpc;
    // Mining calls may take minutes on a node that builds every block.
    const slow = new RpcClient(url, { timeoutMs: 3_600_000 });
    const snap = await rpc.call<string>('evm_snapshot');
    const out: Metrics = {};
    try {
      const art = JSON.parse(readFileSync(join(repoRoot(), 'fixtures', 'artifacts', 'Events.json'), 'utf8')) as Events;
      const iface = new Interface(art.abi);
      const t0 = performance.now();
      const deployed = await send(rpc, { data: art.bytecode, gas: hex(1_000_000) });
      const events = deployed.contractAddress!;
      const from = Number(deployed.blockNumber);
      const gap = blocks / HANDFUL - 1;
      for (let i = 0; i < HANDFUL; i++) {
        await slow.call('anvil_mine', [hex(gap)]);
        await send(rpc, { to: events, data: iface.encodeFunctionData('ping', [i, '0x' + '11'.repeat(32), `ping ${i}`]), gas: hex(200_000) });
      }
      for (let i = 0; i < MANY_TXS; i++) {
        await send(rpc, { to: events, data: iface.encodeFunctionData('many', [PER_TX]), gas: hex(3_000_000) });
      }
      const head = Number(await rpc.call<string>('eth_blockNumber'));
      if (head - from < blocks) throw new Error(`chain too short: ${head - from} blocks`);
      out['build chain'] = { value: performance.now() - t0, unit: 'ms' };

      const range = { fromBlock: hex(from), toBlock: hex(head) };
      const handful = await timeQuery(rpc, { ...range, address: events, topics: [PING] }, HANDFUL, rounds);
      const k = `${blocks / 1000}k`;
      out[`5 in ${k} blocks p50`] = { value: median(handful), unit: 'ms' };
      out[`5 in ${k} blocks p99`] = { value: percentile(handful, 99), unit: 'ms' };
      const byTopic = await timeQuery(rpc, { ...range, topics: [PING] }, HANDFUL, rounds);
      out['5, topic only p50'] = { value: median(byTopic), unit: 'ms' };
      const many = await timeQuery(rpc, { ...range, address: events, topics: [PONG] }, MANY_TXS * PER_TX, Math.ceil(rounds / 2));
      out['10,000 logs p50'] = { value: median(many), unit: 'ms' };
      out['10,000 logs p99'] = { value: percentile(many, 99), unit: 'ms' };
      return out;
    } finally {
      if (extra) {
        rpc.close();
        await extra.stop();
      } else {
        await slow.call('evm_revert', [snap]).catch(() => undefined);
      }
      slow.close();
    }
  },
};

export default scenario;
