// Latency of a JSON-RPC batch of 100 mixed reads (eth_getBalance,
// eth_blockNumber, eth_getTransactionCount), sent one after another.

import { performance } from 'node:perf_hooks';
import { median, percentile, type RpcCall, type Scenario } from '../harness.js';
import { DEV_ADDRESS, OTHER_DEV_ADDRESSES, recipient } from '../chain.js';

const ERROR_KEY = Buffer.from('"error"');

function mixedBatch(): RpcCall[] {
  const addrs = [DEV_ADDRESS, ...OTHER_DEV_ADDRESSES, recipient(0), recipient(1), recipient(2)];
  const calls: RpcCall[] = [];
  for (let i = 0; i < 100; i++) {
    const a = addrs[i % addrs.length]!;
    switch (i % 3) {
      case 0:
        calls.push({ method: 'eth_getBalance', params: [a, 'latest'] });
        break;
      case 1:
        calls.push({ method: 'eth_blockNumber', params: [] });
        break;
      default:
        calls.push({ method: 'eth_getTransactionCount', params: [a, 'latest'] });
    }
  }
  return calls;
}

const scenario: Scenario = {
  name: 'batch',
  description: 'batch of 100 mixed reads: p50/p99 latency over 200 sequential batches',
  async run(node) {
    const calls = mixedBatch();
    // Validate the answer once with a full parse.
    const results = await node.rpc.batch(calls);
    if (results.length !== 100) throw new Error(`batch answered ${results.length} results`);

    const body = Buffer.from(
      JSON.stringify(calls.map((c, i) => ({ jsonrpc: '2.0', id: i + 1, method: c.method, params: c.params }))),
    );
    const warmup = node.options.quick ? 5 : 20;
    const batches = node.options.quick ? 50 : 200;
    for (let i = 0; i < warmup; i++) await node.rpc.post(body);
    const lat = new Float64Array(batches);
    let errors = 0;
    for (let i = 0; i < batches; i++) {
      const s = performance.now();
      const out = await node.rpc.post(body);
      lat[i] = performance.now() - s;
      if (out.indexOf(ERROR_KEY) >= 0) errors++;
    }
    if (errors > 0) throw new Error(`${errors} of ${batches} batches contained errors`);
    return {
      'latency p50': { value: median(lat), unit: 'ms' },
      'latency p99': { value: percentile(lat, 99), unit: 'ms' },
    };
  },
};

export default scenario;
