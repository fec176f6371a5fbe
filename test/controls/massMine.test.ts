import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { keccak256 } from 'ethers';
import { startTestNode, type TestNode } from '../support/node.js';
import { block, blockNumber, deploy, eventsIface, send } from './helpers.js';

const OTHER = '0x00000000000000000000000000000000000000ee';

describe('mining many empty blocks', () => {
  let n: TestNode;
  let events: string;
  before(async () => {
    n = await startTestNode();
    events = await deploy(n, 'Events');
  });
  after(() => n.close());

  test('a mass-mined run has exactly the blocks mining them one by one gives', async () => {
    const count = 300;
    const id = await n.rpc<string>('evm_snapshot');
    const t = Number((await block(n, 'latest')).timestamp) + 10;
    await n.rpc('anvil_setBlockTimestampInterval', [2]);
    const one = await n.rpc<any[]>('evm_mine_detailed', [{ timestamp: t, blocks: count }]);
    assert.equal(one.length, count);
    await n.rpc('evm_revert', [id]);

    // The revert took the interval back too.
    await n.rpc('anvil_setBlockTimestampInterval', [2]);
    await n.rpc('evm_setNextBlockTimestamp', [t]);
    await n.rpc('anvil_mine', ['0x' + count.toString(16)]);
    const start = Number(one[0].number);
    for (let i = 0; i < count; i += 7) assert.deepEqual(await block(n, start + i, true), one[i], `block ${start + i}`);
    assert.deepEqual(await block(n, start + count - 1, true), one[count - 1]);
    await n.rpc('anvil_removeBlockTimestampInterval');
  });

  test('every block of a run is served by number and by hash, linked and timed consistently', async () => {
    const start = await blockNumber(n);
    await n.rpc('hardhat_mine', ['0x2710', '0xc']); // 10,000 blocks, 12 s apart
    assert.equal(await blockNumber(n), start + 10_000);
    let parent = await block(n, start);
    for (const i of [1, 2, 3, 999, 1000, 5001, 9999, 10_000]) {
      const b = await block(n, start + i);
      assert.equal(Number(b.number), start + i);
      assert.equal(Number(b.timestamp), Number((await block(n, start + 1)).timestamp) + 12 * (i - 1));
      assert.equal((await block(n, start + i - 1)).hash, b.parentHash);
      assert.deepEqual(await n.rpc('eth_getBlockByHash', [b.hash, false]), b);
      assert.deepEqual(b.transactions, []);
      assert.equal(b.gasUsed, '0x0');
      parent = b;
    }
    // Each served header hashes to its hash.
    const raw = await n.rpc<string>('debug_getRawHeader', ['0x' + (start + 5001).toString(16)]);
    assert.equal(keccak256(raw), (await block(n, start + 5001)).hash);
    assert.equal(await n.rpc('eth_getBlockTransactionCountByNumber', ['0x' + (start + 42).toString(16)]), '0x0');
    assert.deepEqual(await n.rpc('eth_getBlockReceipts', ['0x' + (start + 42).toString(16)]), []);
    assert.equal(await n.rpc('eth_getBlockByHash', ['0x' + 'ab'.repeat(32), false]), null);
    // A real block after the run links to its last block.
    const r = await send(n, { to: OTHER, value: '0x1' });
    assert.equal(Number(r.blockNumber), start + 10_001);
    assert.equal((await block(n, start + 10_001)).parentHash, parent.hash);
  });

  test('receipts, logs and fee history over ranges that span runs', async () => {
    const iface = eventsIface();
    const a = await send(n, { to: events, data: iface.encodeFunctionData('pong', [1]) });
    await n.rpc('anvil_mine', ['0x1f4']);
    const b = await send(n, { to: events, data: iface.encodeFunctionData('pong', [2]) });
    await n.rpc('anvil_mine', ['0x64']);
    const logs = await n.rpc<any[]>('eth_getLogs', [{ fromBlock: a.blockNumber, toBlock: 'latest', address: events }]);
    assert.deepEqual(
      logs.map((l) => [l.blockNumber, l.transactionHash]),
      [
        [a.blockNumber, a.transactionHash],
        [b.blockNumber, b.transactionHash],
      ],
    );
    assert.deepEqual(await n.rpc('eth_getTransactionReceipt', [a.transactionHash]), a);
    assert.deepEqual(await n.rpc('eth_getTransactionReceipt', [b.transactionHash]), b);
    const fees = await n.rpc('eth_feeHistory', ['0x40', 'latest', [50]]);
    assert.equal(fees.baseFeePerGas.length, 65);
    assert.ok(fees.gasUsedRatio.every((x: number) => x === 0));
  });

  test('consecutive anvil_mine calls continue one run; state reads at run blocks work', async () => {
    const start = await blockNumber(n);
    const t0 = performance.now();
    await n.rpc('anvil_mine', ['0x4e20']);
    await n.rpc('anvil_mine', ['0x4e20']);
    const ms = performance.now() - t0;
    assert.equal(await blockNumber(n), start + 40_000);
    // Block by block, 40,000 blocks take tens of seconds; a run is one record whatever its length.
    assert.ok(ms < 5000, `two calls of 20,000 blocks took ${ms.toFixed(0)} ms`);
    const mid = '0x' + (start + 20_000).toString(16);
    assert.equal(await n.rpc('eth_getBalance', [OTHER, mid]), await n.rpc('eth_getBalance', [OTHER, 'latest']));
    const x = await block(n, start + 20_000);
    const y = await block(n, start + 20_001);
    assert.equal(y.parentHash, x.hash);
    assert.equal(Number(y.timestamp), Number(x.timestamp) + 1);
  });
});

describe('runs whose fees are settled from the start', () => {
  let n: TestNode;
  before(async () => {
    n = await startTestNode();
  });
  after(() => n.close());

  test('headers stay exact where block numbers change their encoded length', async () => {
    // A zero base fee never changes, so every header of the run after the first is patched in place.
    await n.rpc('anvil_setNextBlockBaseFeePerGas', ['0x0']);
    await n.rpc('evm_mine');
    const start = await blockNumber(n);
    assert.ok(start < 0x7f);
    await n.rpc('anvil_mine', ['0x' + (70_000 - start).toString(16)]);
    for (const number of [0x7e, 0x7f, 0x80, 0x81, 0xff, 0x100, 0x101, 0xffff, 0x10000, 0x10001, 70_000]) {
      const hex = '0x' + number.toString(16);
      const b = await block(n, number);
      assert.equal(b.number, hex);
      assert.equal(b.baseFeePerGas, '0x0');
      assert.equal(keccak256(await n.rpc<string>('debug_getRawHeader', [hex])), b.hash, `header ${number} hashes to its hash`);
      assert.equal((await block(n, number - 1)).hash, b.parentHash, `block ${number} links to its parent`);
      assert.equal((await n.rpc('eth_getBlockByHash', [b.hash, false])).number, hex);
    }
  });
});
