import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestNode, type TestNode } from '../support/node.js';
import { block, failure } from './helpers.js';

const ts = async (n: TestNode, tag: string | number = 'latest') => Number((await block(n, tag)).timestamp);

describe('time controls', () => {
  let n: TestNode;
  before(async () => {
    n = await startTestNode();
  });
  after(() => n.close());

  test('evm_increaseTime moves the clock forward and answers the total offset', async () => {
    const before = await ts(n);
    assert.equal(await n.rpc('evm_increaseTime', [3600]), 3600);
    assert.equal(await n.rpc('anvil_increaseTime', ['0xe10']), 7200);
    await n.rpc('evm_mine');
    const after = await ts(n);
    assert.ok(after >= before + 7200, `${after} should be at least ${before} + 7200`);
    assert.ok(after < before + 7200 + 30);
  });

  test('evm_setNextBlockTimestamp fixes the next block only; not later than the head is -32602', async () => {
    const head = await ts(n);
    await n.rpc('evm_setNextBlockTimestamp', [head + 500]);
    await n.rpc('evm_mine');
    assert.equal(await ts(n), head + 500);
    await n.rpc('anvil_setNextBlockTimestamp', ['0x' + (head + 600).toString(16)]);
    await n.rpc('evm_mine');
    assert.equal(await ts(n), head + 600);
    // The clock continues from there.
    await n.rpc('evm_mine');
    const next = await ts(n);
    assert.ok(next > head + 600 && next < head + 630);

    for (const bad of [next, next - 100]) {
      const err = await failure(n, 'evm_setNextBlockTimestamp', [bad]);
      assert.equal(err.code, -32602);
      assert.equal(err.message, `timestamp ${bad} is not greater than the latest block's timestamp ${next}`);
    }
    const wrongType = await failure(n, 'evm_setNextBlockTimestamp', ['soon']);
    assert.equal(wrongType.code, -32602);
    assert.match(wrongType.message, /argument 0/);
  });

  test('evm_setTime sets the clock; timestamps never go backwards', async () => {
    const head = await ts(n);
    const target = head + 86_400;
    const moved = await n.rpc<number>('evm_setTime', [target]);
    assert.ok(moved > 0);
    await n.rpc('evm_mine');
    const t = await ts(n);
    assert.ok(t >= target && t < target + 30);
    // Setting the clock into the past does not make blocks go back.
    await n.rpc('anvil_setTime', [head - 1000]);
    await n.rpc('evm_mine');
    assert.equal(await ts(n), t + 1);
    await n.rpc('evm_mine');
    assert.equal(await ts(n), t + 2);
  });

  test('anvil_setBlockTimestampInterval spaces blocks exactly; removing it answers whether one was set', async () => {
    await n.rpc('anvil_setBlockTimestampInterval', [15]);
    const t0 = await ts(n);
    await n.rpc('evm_mine');
    await n.rpc('evm_mine');
    await n.rpc('anvil_mine', ['0x20']);
    assert.equal(await ts(n, 'latest'), t0 + 15 * 34);
    assert.equal(await n.rpc('anvil_removeBlockTimestampInterval'), true);
    assert.equal(await n.rpc('hardhat_removeBlockTimestampInterval'), false);
    // viem's hardhat mode sends milliseconds.
    await n.rpc('hardhat_setBlockTimestampInterval', [5000]);
    const t1 = await ts(n);
    await n.rpc('evm_mine');
    assert.equal(await ts(n), t1 + 5);
    await n.rpc('anvil_removeBlockTimestampInterval');
  });
});
