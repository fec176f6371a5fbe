import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ADDRS, startTestNode, type TestNode } from '../support/node.js';
import { block, blockNumber, failure, send, sleep } from './helpers.js';

const OTHER = '0x00000000000000000000000000000000000000aa';

describe('mining modes', () => {
  let n: TestNode;
  before(async () => {
    n = await startTestNode();
  });
  after(() => n.close());

  test('automine is on by default and mines each transaction at once', async () => {
    assert.equal(await n.rpc('anvil_getAutomine'), true);
    assert.equal(await n.rpc('hardhat_getAutomine'), true);
    const before = await blockNumber(n);
    const r = await send(n, { to: OTHER, value: '0x1' });
    assert.equal(Number(r.blockNumber), before + 1);
  });

  test('with automine off transactions wait in the pool until a block is mined', async () => {
    assert.equal(await n.rpc('evm_setAutomine', [false]), null);
    assert.equal(await n.rpc('anvil_getAutomine'), false);
    const start = await blockNumber(n);
    const hash = await n.rpc<string>('eth_sendTransaction', [{ from: ADDRS[0], to: OTHER, value: '0x2' }]);
    assert.equal(await n.rpc('eth_getTransactionReceipt', [hash]), null);
    assert.equal(await blockNumber(n), start);
    const latest = Number(await n.rpc('eth_getTransactionCount', [ADDRS[0], 'latest']));
    assert.equal(Number(await n.rpc('eth_getTransactionCount', [ADDRS[0], 'pending'])), latest + 1);

    assert.equal(await n.rpc('evm_mine'), '0x0');
    const r = await n.rpc('eth_getTransactionReceipt', [hash]);
    assert.equal(Number(r.blockNumber), start + 1);

    // Turning automine back on mines what waits.
    const waiting = await n.rpc<string>('eth_sendTransaction', [{ from: ADDRS[0], to: OTHER, value: '0x3' }]);
    assert.equal(await n.rpc('eth_getTransactionReceipt', [waiting]), null);
    await n.rpc('anvil_setAutomine', [true]);
    assert.notEqual(await n.rpc('eth_getTransactionReceipt', [waiting]), null);
  });

  test('blocks respect the block gas limit: the overflow stays pending for the next block', async () => {
    await n.rpc('evm_setAutomine', [false]);
    assert.equal(await n.rpc('evm_setBlockGasLimit', ['0xc350']), true); // 50,000: two transfers fit
    const hashes: string[] = [];
    for (let i = 0; i < 3; i++) hashes.push(await n.rpc('eth_sendTransaction', [{ from: ADDRS[1], to: OTHER, value: '0x1', gas: '0x5208' }]));
    await n.rpc('evm_mine');
    const first = await block(n, 'latest');
    assert.deepEqual(first.transactions, hashes.slice(0, 2));
    assert.equal(first.gasLimit, '0xc350');
    assert.equal(await n.rpc('eth_getTransactionReceipt', [hashes[2]]), null);
    await n.rpc('evm_mine');
    assert.deepEqual((await block(n, 'latest')).transactions, [hashes[2]]);
    await n.rpc('anvil_setBlockGasLimit', ['0x1c9c380']);
    await n.rpc('evm_setAutomine', [true]);
  });

  test('evm_mine takes a timestamp or { timestamp, blocks }', async () => {
    const head = await block(n, 'latest');
    const t = Number(head.timestamp) + 1000;
    await n.rpc('evm_mine', [t]);
    assert.equal(Number((await block(n, 'latest')).timestamp), t);
    const start = await blockNumber(n);
    await n.rpc('evm_mine', [{ timestamp: '0x' + (t + 50).toString(16), blocks: 3 }]);
    assert.equal(await blockNumber(n), start + 3);
    assert.equal(Number((await block(n, start + 1)).timestamp), t + 50);
    assert.ok(Number((await block(n, start + 3)).timestamp) > t + 50);
    // Not after the latest block: -32602 with a clear message.
    const err = await failure(n, 'evm_mine', [t]);
    assert.equal(err.code, -32602);
    assert.match(err.message, /not greater than the latest block's timestamp/);
  });

  test('anvil_mine / hardhat_mine mine a count of blocks an interval apart', async () => {
    const start = await blockNumber(n);
    assert.equal(await n.rpc('anvil_mine'), null);
    assert.equal(await blockNumber(n), start + 1);
    await n.rpc('hardhat_mine', ['0x5', '0x3c']);
    assert.equal(await blockNumber(n), start + 6);
    const times: number[] = [];
    for (let i = start + 2; i <= start + 6; i++) times.push(Number((await block(n, i)).timestamp));
    assert.deepEqual(times.slice(1).map((x, i) => x - times[i]), [60, 60, 60, 60]);
    // viem sends interval 0 for "none": blocks still get increasing timestamps.
    await n.rpc('anvil_mine', ['0x3', '0x0']);
    const t = [start + 7, start + 8, start + 9].map(async (i) => Number((await block(n, i)).timestamp));
    const [a, b, c] = await Promise.all(t);
    assert.ok(a < b && b < c);
    const bad = await failure(n, 'anvil_mine', ['ten']);
    assert.equal(bad.code, -32602);
    assert.match(bad.message, /argument 0/);
  });

  test('pending transactions go into the first blocks of anvil_mine', async () => {
    await n.rpc('evm_setAutomine', [false]);
    const hash = await n.rpc<string>('eth_sendTransaction', [{ from: ADDRS[2], to: OTHER, value: '0x9' }]);
    const start = await blockNumber(n);
    await n.rpc('anvil_mine', ['0x20']);
    assert.equal(await blockNumber(n), start + 32);
    assert.equal(Number((await n.rpc('eth_getTransactionReceipt', [hash])).blockNumber), start + 1);
    await n.rpc('evm_setAutomine', [true]);
  });

  test('anvil_mine_detailed / evm_mine_detailed answer the mined blocks with their transactions', async () => {
    await n.rpc('evm_setAutomine', [false]);
    const hash = await n.rpc<string>('eth_sendTransaction', [{ from: ADDRS[0], to: OTHER, value: '0x4' }]);
    const blocks = await n.rpc<any[]>('anvil_mine_detailed');
    assert.equal(blocks.length, 1);
    assert.equal(blocks[0].transactions[0].hash, hash);
    assert.deepEqual(blocks[0], await block(n, 'latest', true));
    const two = await n.rpc<any[]>('evm_mine_detailed', [{ blocks: 2 }]);
    assert.equal(two.length, 2);
    assert.equal(two[1].parentHash, two[0].hash);
    await n.rpc('evm_setAutomine', [true]);
  });

  test('interval mining is observed over time and can be switched off', async () => {
    // hardhat units: milliseconds.
    await n.rpc('evm_setIntervalMining', [200]);
    assert.equal(await n.rpc('anvil_getIntervalMining'), 0.2);
    const start = await blockNumber(n);
    await sleep(1100);
    const mined = (await blockNumber(n)) - start;
    assert.ok(mined >= 3 && mined <= 7, `expected about 5 interval blocks, got ${mined}`);
    await n.rpc('evm_setIntervalMining', [0]);
    assert.equal(await n.rpc('anvil_getIntervalMining'), null);
    const stopped = await blockNumber(n);
    await sleep(450);
    assert.equal(await blockNumber(n), stopped);

    // hardhat's random range form.
    await n.rpc('evm_setIntervalMining', [[100, 150]]);
    const s2 = await blockNumber(n);
    await sleep(700);
    assert.ok((await blockNumber(n)) - s2 >= 3);
    await n.rpc('evm_setIntervalMining', [0]);

    // anvil units: seconds; interval mining replaces automine, so transactions wait for the tick.
    await n.rpc('anvil_setIntervalMining', [1]);
    assert.equal(await n.rpc('anvil_getIntervalMining'), 1);
    assert.equal(await n.rpc('anvil_getAutomine'), false);
    const hash = await n.rpc<string>('eth_sendTransaction', [{ from: ADDRS[0], to: OTHER, value: '0x5' }]);
    assert.equal(await n.rpc('eth_getTransactionReceipt', [hash]), null);
    await sleep(1200);
    assert.notEqual(await n.rpc('eth_getTransactionReceipt', [hash]), null);
    await n.rpc('anvil_setIntervalMining', [0]);
    await n.rpc('evm_setAutomine', [true]);
  });
});
