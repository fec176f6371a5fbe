/**
 * History on a fork: blocks, transactions, receipts and logs at or below the fork block (and state
 * before it) are the upstream's; what the upstream mines after the fork point is not part of the
 * fork's chain.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { id as topicOf } from 'ethers';
import { ADDRS, startTestNode, type RpcCallError, type TestNode } from '../support/node.js';
import { HOLDER, RICH, balanceOf, forkOf, send, startUpstream, token, type Upstream } from './helpers.js';

const hex = (n: bigint) => '0x' + n.toString(16);
const TRANSFER = topicOf('Transfer(address,address,uint256)');

describe('fork history', () => {
  let up: Upstream;
  let fork: TestNode;
  /** A transaction the upstream mined after the fork point. */
  let laterTx: string;
  let laterBlock: any;

  before(async () => {
    up = await startUpstream();
    fork = await startTestNode({ fork: forkOf(up) });
    const r = await send(up.node, { to: up.token, data: token().encodeFunctionData('transfer', [RICH, 3n]) });
    laterTx = r.transactionHash;
    laterBlock = await up.node.rpc('eth_getBlockByNumber', [r.blockNumber, false]);
    // And one local transfer on the fork.
    await send(fork, { to: up.token, data: token().encodeFunctionData('transfer', [HOLDER, 11n]) });
  });
  after(async () => {
    await fork?.close();
    await up?.node.close();
  });

  test('upstream transactions and receipts up to the fork block are served', async () => {
    const tx = await fork.rpc('eth_getTransactionByHash', [up.deployTx]);
    assert.deepEqual(tx, await up.node.rpc('eth_getTransactionByHash', [up.deployTx]));
    const receipt = await fork.rpc('eth_getTransactionReceipt', [up.deployTx]);
    assert.equal(receipt.contractAddress, up.token.toLowerCase());
    assert.deepEqual(receipt, await up.node.rpc('eth_getTransactionReceipt', [up.deployTx]));
    assert.equal(await fork.rpc('eth_getRawTransactionByHash', [up.deployTx]), await up.node.rpc('eth_getRawTransactionByHash', [up.deployTx]));
    const block = await fork.rpc('eth_getBlockByHash', [receipt.blockHash, true]);
    assert.deepEqual(block, await up.node.rpc('eth_getBlockByHash', [receipt.blockHash, true]));
    assert.equal(await fork.rpc('eth_getBlockTransactionCountByNumber', [receipt.blockNumber]), '0x1');
    assert.equal((await fork.rpc('eth_getTransactionByBlockHashAndIndex', [receipt.blockHash, '0x0'])).hash, up.deployTx);
    assert.deepEqual(await fork.rpc('eth_getBlockReceipts', [receipt.blockNumber]), [receipt]);
    assert.equal((await fork.rpc('eth_getBlockByNumber', ['earliest', false])).hash, (await up.node.rpc('eth_getBlockByNumber', ['0x0', false])).hash);
  });

  test('what the upstream mined after the fork point is not on the fork', async () => {
    assert.equal(await fork.rpc('eth_getTransactionByHash', [laterTx]), null);
    assert.equal(await fork.rpc('eth_getTransactionReceipt', [laterTx]), null);
    assert.equal(await fork.rpc('eth_getRawTransactionByHash', [laterTx]), null);
    assert.equal(await fork.rpc('eth_getBlockByHash', [laterBlock.hash, false]), null);
    // The fork's own block at that height is a local one.
    const ours = await fork.rpc('eth_getBlockByNumber', [laterBlock.number, false]);
    assert.notEqual(ours.hash, laterBlock.hash);
    assert.equal(await balanceOf(fork, up.token, RICH), 0n);
  });

  test('state before the fork block is the upstream’s at that block', async () => {
    const deployBlock = (await up.node.rpc('eth_getTransactionReceipt', [up.deployTx])).blockNumber;
    const before = hex(BigInt(deployBlock) - 1n);
    assert.equal(await fork.rpc('eth_getCode', [up.token, before]), '0x');
    assert.equal(await fork.rpc('eth_getCode', [up.token, deployBlock]), await up.node.rpc('eth_getCode', [up.token, 'latest']));
    assert.equal(await balanceOf(fork, up.token, HOLDER, deployBlock), 0n);
    assert.equal(await fork.rpc('eth_getBalance', [RICH, before]), '0x0');
    const blockHash = (await up.node.rpc('eth_getBlockByNumber', [deployBlock, false])).hash;
    assert.equal(await fork.rpc('eth_getTransactionCount', [ADDRS[0], { blockHash }]), await up.node.rpc('eth_getTransactionCount', [ADDRS[0], { blockHash }]));
    await assert.rejects(fork.rpc('eth_getBalance', [RICH, { blockHash: laterBlock.hash }]), /header for hash .* not found/);
  });

  test('bad params are named the same way whether the block is local or the upstream’s', async () => {
    const deployBlock = (await up.node.rpc('eth_getTransactionReceipt', [up.deployTx])).blockNumber;
    const before = hex(BigInt(deployBlock) - 1n);
    const invalid = (pattern: RegExp) => (e: RpcCallError) => e.code === -32602 && pattern.test(e.message);
    for (const at of ['latest', before]) {
      await assert.rejects(fork.rpc('eth_call', [{ to: up.token, data: '0xzz' }, at]), invalid(/invalid argument 0\.data: invalid hex string/));
      await assert.rejects(fork.rpc('eth_getBalance', ['0x1234', at]), invalid(/invalid argument 0: expected address/));
      await assert.rejects(fork.rpc('eth_getBalance', [RICH, at, 'extra']), invalid(/too many arguments/));
    }
    // The block param itself; an earlier bad param is still the one named.
    await assert.rejects(fork.rpc('eth_getBalance', [RICH, 'soon']), invalid(/invalid argument 1/));
    await assert.rejects(fork.rpc('eth_getBalance', ['0x1234', 'soon']), invalid(/invalid argument 0/));
  });

  test('eth_getLogs across the fork point: upstream logs, then local ones', async () => {
    const logs = await fork.rpc('eth_getLogs', [{ fromBlock: 'earliest', toBlock: 'latest', address: up.token, topics: [TRANSFER] }]);
    const upstream = await up.node.rpc('eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(up.forkBlock), address: up.token, topics: [TRANSFER] }]);
    assert.equal(upstream.length, 2);
    assert.deepEqual(logs.slice(0, 2), upstream);
    assert.equal(logs.length, 3);
    assert.equal(BigInt(logs[2].blockNumber), up.forkBlock + 1n);
    // Only below the fork point, and only above it.
    assert.deepEqual(await fork.rpc('eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(up.forkBlock), address: up.token }]), upstream);
    assert.equal((await fork.rpc('eth_getLogs', [{ fromBlock: hex(up.forkBlock + 1n), address: up.token }])).length, 1);
    // By block hash, an upstream block.
    const deployBlockHash = upstream[0].blockHash;
    assert.deepEqual(await fork.rpc('eth_getLogs', [{ blockHash: deployBlockHash }]), await up.node.rpc('eth_getLogs', [{ blockHash: deployBlockHash }]));
    await assert.rejects(fork.rpc('eth_getLogs', [{ blockHash: laterBlock.hash }]), /unknown block/);
  });

  test('traces and raw encodings of upstream history come from the upstream', async () => {
    const config = { tracer: 'callTracer' };
    assert.deepEqual(await fork.rpc('debug_traceTransaction', [up.deployTx, config]), await up.node.rpc('debug_traceTransaction', [up.deployTx, config]));
    assert.equal(await fork.rpc('debug_getRawBlock', [hex(up.forkBlock)]), await up.node.rpc('debug_getRawBlock', [hex(up.forkBlock)]));
    assert.equal(await fork.rpc('debug_getRawHeader', [hex(up.forkBlock - 1n)]), await up.node.rpc('debug_getRawHeader', [hex(up.forkBlock - 1n)]));
    await assert.rejects(fork.rpc('debug_traceTransaction', [laterTx, config]), /transaction not found/);
    await assert.rejects(fork.rpc('debug_getRawBlock', [laterBlock.hash]), /not found/);
  });

  test('fee history reaches back to the fork block', async () => {
    const h = await fork.rpc('eth_feeHistory', ['0x10', 'latest', []]);
    assert.equal(BigInt(h.oldestBlock), up.forkBlock);
    assert.equal(h.baseFeePerGas.length, h.gasUsedRatio.length + 1);
  });
});
