/**
 * Calls that large real test suites (OpenZeppelin Contracts' own Hardhat tests, run with
 * `npm run test:oz`) make, each found failing there once and kept here as a regression, driven
 * through ethers as those suites drive them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { JsonRpcProvider } from 'ethers';
import { ADDRS, startTestNode, type TestNode } from '../support/node.js';

describe('calls large real suites make', () => {
  let n: TestNode;
  let provider: JsonRpcProvider;

  before(async () => {
    n = await startTestNode();
    provider = new JsonRpcProvider(n.url, 984, { staticNetwork: true, cacheTimeout: -1 });
  });
  after(async () => {
    provider?.destroy();
    await n?.close();
  });

  test("eth_getBlockByNumber takes the block number as a JSON integer (ethers' send with block.number), as anvil does", async () => {
    await n.rpc('evm_mine');
    await n.rpc('evm_mine');
    const latest = (await provider.getBlock('latest'))!;
    const raw = await provider.send('eth_getBlockByNumber', [latest.number, false]);
    assert.equal(raw.hash, latest.hash);
    assert.equal(raw.number, `0x${latest.number.toString(16)}`);
    const first = await provider.send('eth_getBlockByNumber', [1, false]);
    assert.equal(first.number, '0x1');
    assert.equal(await provider.send('eth_getBlockByNumber', [latest.number + 100, false]), null);
    assert.equal(await provider.send('eth_getBlockTransactionCountByNumber', [0]), '0x0');
  });

  test('a JSON integer that is no block number is still refused with -32602, and state methods keep wanting a hex QUANTITY (as anvil)', async () => {
    for (const bad of [-1, 1.5, 2 ** 60]) {
      const r = await n.raw('eth_getBlockByNumber', [bad, false]);
      assert.equal(r.error?.code, -32602, JSON.stringify(r));
    }
    const r = await n.raw('eth_getBalance', [ADDRS[0], 0]);
    assert.equal(r.error?.code, -32602, JSON.stringify(r));
    assert.match(r.error!.message, /expected a block number or one of latest/);
  });
});
