// The per-request floor: a bare node:http server (a dozen lines, no Ethereum: it parses the body
// and answers a fixed result) against the node's eth_chainId, both one request in flight at a time
// over one keep-alive socket, in the same scenario and so on the machine as it is at that moment.
// The gap between the two is what framing, parsing, dispatch and serialization cost the node.
// node-rpc keeps its event loop polling between a sequential client's requests (src/server/awake.ts),
// which a bare server does not, so a second bare server does the same with the node's own rule:
// against that one the gap is again only framing, parsing, dispatch and serialization.

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { bareServer } from '../bare.js';
import { RpcClient, median, percentile, repoRoot, sleep, startBare, type Scenario } from '../harness.js';

/** Sequential eth_chainId round trips: a warm-up, then `n` measured; their times in ms. */
async function roundTrips(url: string, warm: number, n: number): Promise<Float64Array> {
  const rpc = new RpcClient(url, { maxSockets: 1 });
  try {
    const body = rpc.encode('eth_chainId');
    for (let i = 0; i < warm; i++) await rpc.post(body);
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await rpc.post(body);
      out[i] = performance.now() - t;
    }
    return out;
  } finally {
    rpc.close();
  }
}

const scenario: Scenario = {
  name: 'http-floor',
  description: 'eth_chainId one at a time beside a bare node:http server answering the same (the per-request floor), asleep and awake between requests',
  async run(node) {
    const [warm, n] = node.options.quick ? [500, 1_000] : [3_000, 5_000];
    const awakeModule = pathToFileURL(join(repoRoot(), 'dist', 'src', 'server', 'awake.js')).href;
    const bare = await startBare(['-e', bareServer('0x3d8')]);
    let awake: { url: string; kill: () => void } | undefined;
    try {
      awake = await startBare(['--input-type=module', '-e', bareServer('0x3d8', awakeModule)]);
      await sleep(100);
      // Alternate halves so drift of the machine touches all three alike.
      const floorA = await roundTrips(bare.url, warm, n / 2);
      const awakeA = await roundTrips(awake.url, warm, n / 2);
      const nodeA = await roundTrips(node.url, warm, n / 2);
      const floorB = await roundTrips(bare.url, 0, n / 2);
      const awakeB = await roundTrips(awake.url, 0, n / 2);
      const nodeB = await roundTrips(node.url, 0, n / 2);
      const floor = Float64Array.from([...floorA, ...floorB]);
      const awakeFloor = Float64Array.from([...awakeA, ...awakeB]);
      const own = Float64Array.from([...nodeA, ...nodeB]);
      const floorP50 = median(floor);
      const awakeP50 = median(awakeFloor);
      const ownP50 = median(own);
      return {
        'eth_chainId p50': { value: ownP50 * 1000, unit: 'µs' },
        'eth_chainId p99': { value: percentile(own, 99) * 1000, unit: 'µs' },
        'bare node:http p50': { value: floorP50 * 1000, unit: 'µs' },
        'over the floor': { value: (ownP50 / floorP50 - 1) * 100, unit: '%' },
        'bare, awake p50': { value: awakeP50 * 1000, unit: 'µs' },
        'bare, awake p99': { value: percentile(awakeFloor, 99) * 1000, unit: 'µs' },
        'over the awake floor': { value: (ownP50 / awakeP50 - 1) * 100, unit: '%' },
      };
    } finally {
      bare.kill();
      awake?.kill();
    }
  },
};

export default scenario;
