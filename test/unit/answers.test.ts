/**
 * Mined blocks, transactions and receipts never change, so their answers are written to JSON once
 * and kept for the last ones asked about. What a caller gets must not show it: in process each
 * answer is a fresh copy (changing one leaves the next as it was), over HTTP the text is the same
 * as the answer's value, and a block mined again at the same height after a revert is answered
 * anew.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ADDRS, chain, served, type Chain, type Http } from './support.js';

describe('answers about mined objects', () => {
  let c: Chain;
  let http: Http;
  before(async () => {
    c = await chain();
    http = await served(c);
  });
  after(() => c.close());

  const overHttp = async (method: string, params: unknown[]) => (await http.post(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }))).result;

  test('each in-process answer is a copy of its own; over HTTP the same answer', async () => {
    const hash = await c.rpc<string>('eth_sendTransaction', { from: ADDRS[0], to: ADDRS[1], value: '0x1' });
    for (const [method, params] of [
      ['eth_getTransactionReceipt', [hash]],
      ['eth_getTransactionByHash', [hash]],
      ['eth_getBlockByNumber', ['latest', false]],
      ['eth_getBlockByNumber', ['latest', true]],
    ] as const) {
      const first = await c.rpc<Record<string, unknown>>(method, ...params);
      const kept = structuredClone(first);
      first.blockHash = 'changed';
      first.hash = 'changed';
      const second = await c.rpc<Record<string, unknown>>(method, ...params);
      assert.deepEqual(second, kept, `${method}: a changed answer does not reach the next`);
      assert.notEqual(second, first);
      assert.deepEqual(await overHttp(method, [...params]), kept, `${method} over HTTP`);
    }
  });

  test('a block mined again at the same height after a revert is answered anew', async () => {
    const snapshot = await c.rpc<string>('evm_snapshot');
    await c.rpc('eth_sendTransaction', { from: ADDRS[0], to: ADDRS[1], value: '0x2' });
    const before = await c.rpc<{ hash: string; number: string; transactions: string[] }>('eth_getBlockByNumber', 'latest', false);
    const receipt = await c.rpc<{ blockHash: string }>('eth_getTransactionReceipt', before.transactions[0]);
    assert.equal(receipt.blockHash, before.hash);
    assert.equal(await c.rpc('evm_revert', snapshot), true);
    const again = await c.rpc<string>('eth_sendTransaction', { from: ADDRS[0], to: ADDRS[2], value: '0x3' });
    const after = await c.rpc<{ hash: string; number: string; transactions: string[] }>('eth_getBlockByNumber', before.number, false);
    assert.notEqual(after.hash, before.hash);
    assert.deepEqual(after.transactions, [again]);
    assert.deepEqual(await overHttp('eth_getBlockByNumber', [before.number, false]), after);
    assert.equal(await c.rpc('eth_getTransactionReceipt', before.transactions[0]), null, 'the reverted transaction has no receipt');
  });
});
