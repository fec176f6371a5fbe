/**
 * Osaka's block-level rules through JSON-RPC: the RLP block size limit (EIP-7934), which
 * ethereumjs 10.1.3 leaves out of Osaka and the node's block builder enforces, and the blob base
 * fee's bound by the execution base fee (EIP-7918), seen in the excess blob gas of a fork whose
 * upstream block carries some.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { privateKeyToAccount } from 'viem/accounts';
import { KEYS, startTestNode, type TestNode } from '../support/node.js';
import { rpcProxy, type RpcProxy } from '../support/proxy.js';

const MAX_RLP_BLOCK_SIZE = 8 * 1024 * 1024;

describe('Osaka block rules', () => {
  const closers: Array<{ close(): Promise<void> }> = [];
  after(async () => {
    for (const c of closers.reverse()) await c.close();
  });

  /** Six transactions of 1.45 MB of calldata each (8.7 MB together): 87M gas, under a 100M block gas limit. */
  async function sendBig(n: TestNode): Promise<string[]> {
    const account = privateKeyToAccount(KEYS[0]);
    const data = `0x${'00'.repeat(1_450_000)}` as const;
    const hashes: string[] = [];
    for (let nonce = 0; nonce < 6; nonce++) {
      const raw = await account.signTransaction({ chainId: 984, type: 'eip1559', to: `0x${'11'.repeat(20)}`, data, gas: 14_600_000n, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 1n, nonce });
      hashes.push(await n.rpc('eth_sendRawTransaction', [raw]));
    }
    return hashes;
  }

  test('EIP-7934: a block holds at most 8 MiB of RLP; what does not fit waits for the next block (Prague: one block)', async () => {
    const osaka = await startTestNode({ chain: { gasLimit: 100_000_000n, hardfork: 'osaka' }, mining: { auto: false } });
    closers.push(osaka);
    await sendBig(osaka);
    await osaka.rpc('evm_mine');
    const first = await osaka.rpc('eth_getBlockByNumber', ['0x1', false]);
    assert.equal(first.transactions.length, 5);
    assert.ok(Number(first.size) <= MAX_RLP_BLOCK_SIZE, `size ${Number(first.size)}`);
    assert.equal((await osaka.rpc('txpool_status')).pending, '0x1');
    await osaka.rpc('evm_mine');
    assert.equal((await osaka.rpc('eth_getBlockByNumber', ['0x2', false])).transactions.length, 1);

    const prague = await startTestNode({ chain: { gasLimit: 100_000_000n, hardfork: 'prague' }, mining: { auto: false } });
    closers.push(prague);
    await sendBig(prague);
    await prague.rpc('evm_mine');
    const one = await prague.rpc('eth_getBlockByNumber', ['0x1', false]);
    assert.equal(one.transactions.length, 6);
    assert.ok(Number(one.size) > MAX_RLP_BLOCK_SIZE);
  });

  test('a state file records its fork: a Prague chain is refused by a node on the default fork, naming the flag', async () => {
    const prague = await startTestNode({ chain: { hardfork: 'prague' } });
    closers.push(prague);
    await prague.rpc('eth_sendTransaction', [{ from: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', to: '0x' + '22'.repeat(20), value: '0x1' }]);
    const dump = await prague.rpc('anvil_dumpState');
    const dflt = await startTestNode();
    closers.push(dflt);
    const refused = await dflt.raw('anvil_loadState', [dump]);
    assert.equal(refused.error?.code, -32602);
    assert.match(refused.error?.message ?? '', /follows prague, this node runs bpo2 \(start it with --hardfork prague\)/);
    const again = await startTestNode({ chain: { hardfork: 'prague' } });
    closers.push(again);
    assert.equal(await again.rpc('anvil_loadState', [dump]), true);
    assert.equal(await again.rpc('eth_blockNumber'), '0x1');
  });

  test('EIP-7918: with the blob base fee far below the execution base fee, the excess blob gas no longer falls (Prague: it falls by the target)', async () => {
    const upstream = await startTestNode();
    closers.push(upstream);
    await upstream.rpc('evm_mine');
    const excess = 20n * 1_835_008n;
    // The upstream's fork block, as if it carried excess blob gas (no blobs in it).
    const proxy: RpcProxy = await rpcProxy(upstream.url, async (req, forward) => {
      const r = await forward();
      if (!req.body.includes('eth_getBlockByNumber')) return r;
      return { ...r, body: r.body.replace(/"excessBlobGas":"0x[0-9a-f]+"/g, `"excessBlobGas":"0x${excess.toString(16)}"`) };
    });
    closers.push(proxy);
    const fee = async (hardfork: 'prague' | 'osaka' | 'bpo2') => {
      const fork = await startTestNode({ chain: { hardfork }, fork: { url: proxy.url, blockNumber: 1n, retries: 1, backoffMs: 10, timeoutMs: 2000 } });
      closers.push(fork);
      await fork.rpc('evm_mine');
      const head = await fork.rpc('eth_getBlockByNumber', ['latest', false]);
      return { excess: BigInt(head.excessBlobGas), blobBaseFee: BigInt(await fork.rpc('eth_blobBaseFee')) };
    };
    const prague = await fee('prague');
    assert.equal(prague.excess, excess - 6n * 131_072n);
    const osaka = await fee('osaka');
    assert.equal(osaka.excess, excess);
    const bpo2 = await fee('bpo2');
    assert.equal(bpo2.excess, excess);
    // The blob base fee follows: BPO2's larger update fraction prices the same excess lower.
    assert.ok(osaka.blobBaseFee > prague.blobBaseFee);
    assert.ok(bpo2.blobBaseFee < osaka.blobBaseFee);
  });
});
