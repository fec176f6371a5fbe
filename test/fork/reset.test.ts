/** anvil_reset / hardhat_reset with `forking` (re-fork, fork, drop the fork) and anvil_setRpcUrl. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ADDRS, RpcCallError, startTestNode, type TestNode } from '../support/node.js';
import { rpcProxy } from '../support/proxy.js';
import { HOLDER, RICH, balanceOf, forkOf, send, startUpstream, token, type Upstream } from './helpers.js';

const hex = (n: bigint) => '0x' + n.toString(16);

describe('reset with forking', () => {
  let up: Upstream;
  let other: TestNode;
  let fork: TestNode;

  before(async () => {
    up = await startUpstream();
    other = await startTestNode({ chain: { chainId: 4242n } });
    await send(other, { to: HOLDER, value: '0x2a' });
    fork = await startTestNode({ fork: forkOf(up) });
  });
  after(async () => {
    await fork?.close();
    await other?.close();
    await up?.node.close();
  });

  test('re-forks at another block of the same upstream', async () => {
    const local = await send(fork, { to: up.token, data: token().encodeFunctionData('transfer', [HOLDER, 1n]) });
    await fork.rpc('evm_snapshot');
    assert.equal(await fork.rpc('anvil_reset', [{ forking: { jsonRpcUrl: up.node.url, blockNumber: hex(up.forkBlock - 1n) } }]), null);
    assert.equal(BigInt(await fork.rpc('eth_blockNumber')), up.forkBlock - 1n);
    // The 20 funded accounts got their balances by anvil_setBalance at the head before the fork
    // block, so that block's state holds them (as in anvil and the hardhat node), as it holds RICH's.
    assert.equal(await fork.rpc('eth_getBalance', [up.funded[0], 'latest']), '0x3e8');
    assert.equal(await fork.rpc('eth_getBalance', [RICH, 'latest']), '0xde0b6b3a7640000');
    assert.equal(await fork.rpc('eth_getTransactionByHash', [local.transactionHash]), null);
    assert.equal(await balanceOf(fork, up.token, HOLDER), 5000n);
    // Snapshots are gone with the old chain.
    assert.equal(await fork.rpc('evm_revert', ['0x1']), false);
    // hardhat's form: the block as a JSON number; the URL defaults to the current upstream.
    await fork.rpc('hardhat_reset', [{ forking: { blockNumber: Number(up.forkBlock) } }]);
    assert.equal(BigInt(await fork.rpc('eth_blockNumber')), up.forkBlock);
    assert.equal(await fork.rpc('eth_getBalance', [up.funded[0], 'latest']), '0x3e8');
    const r = await send(fork, { to: up.funded[0], value: '0x1' });
    assert.equal((await fork.rpc('eth_getBlockByNumber', [r.blockNumber, false])).parentHash, (await up.node.rpc('eth_getBlockByNumber', [hex(up.forkBlock), false])).hash);
  });

  test('without a block number the fork point is the upstream’s latest block', async () => {
    await send(up.node, { to: RICH, value: '0x1' });
    const latest = await up.node.rpc('eth_blockNumber');
    await fork.rpc('anvil_reset', [{ forking: { jsonRpcUrl: up.node.url } }]);
    assert.equal(await fork.rpc('eth_blockNumber'), latest);
    assert.equal(await fork.rpc('eth_getBalance', [RICH, 'latest']), '0xde0b6b3a7640001');
  });

  test('forking another chain takes its chain id; dropping the fork keeps it', async () => {
    assert.equal(await fork.rpc('eth_chainId'), '0x3d8');
    await fork.rpc('anvil_reset', [{ forking: { jsonRpcUrl: other.url } }]);
    assert.equal(await fork.rpc('eth_chainId'), hex(4242n));
    assert.equal(await fork.rpc('eth_getBalance', [HOLDER, 'latest']), '0x2a');
    assert.equal(await fork.rpc('eth_getCode', [up.token, 'latest']), '0x');
    // A transaction signed for the new chain id is accepted.
    const r = await send(fork, { to: HOLDER, value: '0x1' });
    assert.equal(r.status, '0x1');

    await fork.rpc('anvil_reset', []);
    assert.equal(fork.node.fork, undefined);
    assert.equal(await fork.rpc('eth_blockNumber'), '0x0');
    assert.equal(await fork.rpc('eth_chainId'), hex(4242n));
    assert.equal(await fork.rpc('eth_getBalance', [HOLDER, 'latest']), '0x0');
    assert.equal(await fork.rpc('eth_getBalance', [ADDRS[0], 'latest']), hex(10_000n * 10n ** 18n));
  });

  test('a node that does not fork can start forking; forking needs a URL then', async () => {
    const plain = await startTestNode();
    try {
      await assert.rejects(plain.rpc('anvil_reset', [{ forking: {} }]), (e: RpcCallError) => e.code === -32602 && /jsonRpcUrl is required/.test(e.message));
      await assert.rejects(plain.rpc('anvil_reset', [{ forking: { jsonRpcUrl: 42 } }]), (e: RpcCallError) => e.code === -32602 && /0\.forking\.jsonRpcUrl/.test(e.message));
      await plain.rpc('anvil_reset', [{ forking: { jsonRpcUrl: up.node.url, blockNumber: hex(up.forkBlock) } }]);
      assert.equal(await balanceOf(plain, up.token, HOLDER), 5000n);
      assert.equal(BigInt(await plain.rpc('eth_blockNumber')), up.forkBlock);
    } finally {
      await plain.close();
    }
  });

  test('an upstream that cannot be reached leaves the chain as it was', async () => {
    const head = await fork.rpc('eth_blockNumber');
    await assert.rejects(fork.rpc('anvil_reset', [{ forking: { jsonRpcUrl: 'http://127.0.0.1:1' } }]), /fork upstream failed/);
    assert.equal(await fork.rpc('eth_blockNumber'), head);
  });

  test('anvil_setRpcUrl switches the upstream; later reads go to the new URL', async () => {
    await fork.rpc('anvil_reset', [{ forking: { jsonRpcUrl: up.node.url, blockNumber: hex(up.forkBlock) } }]);
    const proxy = await rpcProxy(up.node.url);
    try {
      assert.equal(await fork.rpc('anvil_setRpcUrl', [proxy.url]), null);
      assert.equal(await fork.rpc('eth_getBalance', [up.funded[11], 'latest']), hex(12_000n));
      assert.ok(proxy.requests >= 1);
      await assert.rejects(fork.rpc('anvil_setRpcUrl', ['not a url']), (e: RpcCallError) => e.code === -32602 && /invalid fork URL/.test(e.message));
      await fork.rpc('anvil_setRpcUrl', [up.node.url]);
      const before = proxy.requests;
      assert.equal(await fork.rpc('eth_getBalance', [up.funded[12], 'latest']), hex(13_000n));
      assert.equal(proxy.requests, before);
    } finally {
      await proxy.close();
    }
  });
});
