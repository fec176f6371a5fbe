/**
 * A block number given as a plain JSON integer (`eth_getBlockByNumber([1, false])`) is taken
 * wherever a block number or tag is a parameter, as anvil and the hardhat network take it; a
 * negative, fractional or unsafe number is -32602 naming the parameter.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Anvil } from '../support/anvil.js';
import { closeBeside, startBeside } from '../support/beside.js';
import { ADDRS, startTestNode, type TestNode } from '../support/node.js';

describe('block numbers as JSON integers', () => {
  let n: TestNode;

  before(async () => {
    n = await startTestNode();
    await n.rpc('eth_sendTransaction', [{ from: ADDRS[0], to: ADDRS[1], value: '0x1' }]);
    await n.rpc('evm_mine');
  });
  after(() => n.close());

  test('every method with a block number or tag takes one', async () => {
    assert.deepEqual(await n.rpc('eth_getBlockByNumber', [1, false]), await n.rpc('eth_getBlockByNumber', ['0x1', false]));
    assert.equal((await n.rpc('eth_getBlockByNumber', [0, true])).number, '0x0');
    assert.equal(await n.rpc('eth_getBlockByNumber', [99, false]), null);
    assert.equal(await n.rpc('eth_getBlockTransactionCountByNumber', [1]), '0x1');
    assert.equal((await n.rpc('eth_getTransactionByBlockNumberAndIndex', [1, '0x0'])).to, ADDRS[1].toLowerCase());
    assert.equal(await n.rpc('eth_getBalance', [ADDRS[1], 0]), await n.rpc('eth_getBalance', [ADDRS[1], '0x0']));
    assert.notEqual(await n.rpc('eth_getBalance', [ADDRS[1], 1]), await n.rpc('eth_getBalance', [ADDRS[1], 0]));
    assert.equal(await n.rpc('eth_getTransactionCount', [ADDRS[0], { blockNumber: 1 }]), '0x1');
    assert.equal(await n.rpc('eth_call', [{ to: ADDRS[1] }, 1]), '0x');
    assert.deepEqual(await n.rpc('eth_getLogs', [{ fromBlock: 0, toBlock: 2 }]), []);
    assert.equal((await n.rpc('eth_feeHistory', [1, 2, []])).oldestBlock, '0x2');
    // No blocks asked for: nothing, from block 0, as geth and anvil answer.
    assert.deepEqual(await n.rpc('eth_feeHistory', [0, 2, []]), { oldestBlock: '0x0', baseFeePerGas: [], gasUsedRatio: [], baseFeePerBlobGas: [], blobGasUsedRatio: [], reward: [] });
    assert.equal((await n.rpc('debug_traceBlockByNumber', [1, { tracer: 'callTracer' }])).length, 1);
  });

  test('negative, fractional and unsafe numbers are -32602 naming the parameter', async () => {
    for (const bad of [-1, 1.5, 2 ** 53, 1e300]) {
      const r = await n.raw('eth_getBlockByNumber', [bad, false]);
      assert.equal(r.error?.code, -32602, String(bad));
      assert.match(r.error!.message, /invalid argument 0: a block number must be a non-negative integer below 2\^53 \(or a hex QUANTITY\)/);
    }
    const r = await n.raw('eth_getBalance', [ADDRS[0], -3]);
    assert.equal(r.error?.code, -32602);
    assert.match(r.error!.message, /invalid argument 1: .*got -3/);
    // A decimal string is still not a QUANTITY.
    assert.equal((await n.raw('eth_getBlockByNumber', ['1', false])).error?.code, -32602);
  });
});

describe('block numbers as JSON integers against anvil', () => {
  let ours: TestNode;
  let anvil: Anvil;
  before(async () => ({ ours, anvil } = await startBeside()));
  after(() => closeBeside(ours, anvil));

  test('eth_getBlockByNumber([1, false]) finds block 1 on both; -1 is -32602 on both', async () => {
    for (const node of [ours, anvil]) await node.rpc('evm_mine');
    const numbers = [];
    for (const node of [ours, anvil]) {
      const block = await node.rpc('eth_getBlockByNumber', [1, false]);
      numbers.push([block.number, block.hash === (await node.rpc('eth_getBlockByNumber', ['0x1', false])).hash, (await node.raw('eth_getBlockByNumber', [-1, false])).error?.code]);
    }
    assert.deepEqual(numbers[0], ['0x1', true, -32602]);
    assert.deepEqual(numbers[0], numbers[1]);
  });
});
