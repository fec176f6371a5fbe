/**
 * The on-disk fork cache: a second run forking the same chain at the same block reads nothing from
 * the upstream; another fork block gets its own file.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startTestNode, type TestNode } from '../support/node.js';
import { HOLDER, balanceOf, forkOf, probe, startUpstream, type Upstream } from './helpers.js';

const hex = (n: bigint) => '0x' + n.toString(16);

describe('fork disk cache', () => {
  let up: Upstream;
  let dir: string;
  /** JSON-RPC calls the upstream served. */
  let calls = 0;

  before(async () => {
    up = await startUpstream({ observe: () => void calls++ });
    dir = mkdtempSync(join(tmpdir(), 'node-rpc-fork-cache-'));
  });
  after(async () => {
    await up?.node.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Reads touching state and history; returns what they answered. */
  const session = async (f: TestNode) => [
    await f.rpc('eth_getBalance', [up.funded[2], 'latest']),
    await balanceOf(f, up.token, HOLDER),
    await f.rpc('eth_getStorageAt', [up.storage, '0x0', 'latest']),
    await f.rpc('eth_call', [{ to: up.probe, data: probe().encodeFunctionData('probe', [40n, up.funded]) }, 'latest']),
    await f.rpc('eth_getTransactionByHash', [up.deployTx]),
    await f.rpc('eth_getBlockByNumber', [hex(up.forkBlock - 1n), true]),
    await f.rpc('eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(up.forkBlock) }]),
    // A local transaction (reads the system contracts and the coinbase).
    await f.rpc('eth_sendTransaction', [{ from: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', to: up.funded[3], value: '0x1' }]).then(() => 'sent'),
  ];

  test('a second run against the same pinned block does no upstream reads', async () => {
    const options = forkOf(up, { cacheDir: dir, chainId: 984n });
    calls = 0;
    const first = await startTestNode({ fork: options });
    const one = await session(first);
    assert.ok(calls > 0, 'the first run reads the upstream');
    await first.close();
    assert.ok(existsSync(join(dir, 'chain-984', `block-${up.forkBlock}.jsonl`)));

    calls = 0;
    const second = await startTestNode({ fork: options });
    try {
      const two = await session(second);
      assert.deepEqual(two, one);
      assert.equal(calls, 0, 'no upstream calls the second time');
      assert.equal(second.node.fork!.client.stats.httpRequests, 0);
    } finally {
      await second.close();
    }
  });

  test('another fork block does not share the cache', async () => {
    calls = 0;
    // Two blocks back: before the funded accounts' balances were set (a cheat at head N is block N's state).
    const f = await startTestNode({ fork: forkOf(up, { cacheDir: dir, chainId: 984n, blockNumber: up.forkBlock - 2n }) });
    try {
      assert.equal(await f.rpc('eth_getBalance', [up.funded[2], 'latest']), '0x0');
      assert.ok(calls > 0);
    } finally {
      await f.close();
    }
    assert.ok(existsSync(join(dir, 'chain-984', `block-${up.forkBlock - 2n}.jsonl`)));
  });
});
