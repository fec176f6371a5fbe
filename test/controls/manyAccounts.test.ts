/**
 * Edits to more accounts than the state caches hold between two blocks are all kept: test controls
 * write into the trie as they go, and a state load every tenth of the caches' size. Before, the
 * caches (LRUs) dropped the oldest edits before the block's end wrote them. The node here has
 * caches of 1,000 accounts (100,000 by default), so the test edits 1,500.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';
import { startTestNode, type TestNode } from '../support/node.js';

const CACHE = 1000;
const COUNT = 1500;
const who = (i: number, base: number) => '0x' + (base + i).toString(16).padStart(40, '0');

describe('more accounts edited than the caches hold', () => {
  let n: TestNode;
  before(async () => {
    n = await startTestNode({ chain: { stateCacheSize: CACHE } });
  });
  after(async () => {
    await n.close();
  });

  async function balances(base: number): Promise<string[]> {
    return Promise.all([0, 1, 700, COUNT - 1].map((i) => n.rpc<string>('eth_getBalance', [who(i, base), 'latest'])));
  }

  test('1,500 anvil_setBalance calls, then a block: every balance is there', async () => {
    const base = 0x7000000;
    for (let b = 0; b < COUNT; b += 100) {
      const batch = [];
      for (let i = b; i < Math.min(COUNT, b + 100); i++) batch.push({ jsonrpc: '2.0', id: i, method: 'anvil_setBalance', params: [who(i, base), '0x1234'] });
      const answers = (await n.post(JSON.stringify(batch))).json as { error?: unknown }[];
      assert.ok(answers.every((a) => a.error === undefined));
    }
    await n.rpc('evm_mine');
    assert.deepEqual(await balances(base), ['0x1234', '0x1234', '0x1234', '0x1234']);
  });

  test('a state load of 1,500 accounts keeps every one', async () => {
    const base = 0x9000000;
    // The node's own dump with 1,500 more accounts: the same chain, so the accounts are merged in.
    const doc = JSON.parse(gunzipSync(Buffer.from((await n.rpc<string>('anvil_dumpState')).slice(2), 'hex')).toString('utf8'));
    for (let i = 0; i < COUNT; i++) doc.accounts[who(i, base)] = { nonce: 0, balance: '0x99', code: '0x', storage: {} };
    assert.equal(await n.rpc('anvil_loadState', ['0x' + gzipSync(JSON.stringify(doc)).toString('hex')]), true);
    assert.deepEqual(await balances(base), ['0x99', '0x99', '0x99', '0x99']);
    await n.rpc('evm_mine');
    assert.deepEqual(await balances(base), ['0x99', '0x99', '0x99', '0x99']);
  });
  test('a few edits, then reads of more accounts than the caches hold, then a block: the edits are there', async () => {
    const base = 0xb000000;
    for (let i = 0; i < 50; i++) await n.rpc('anvil_setBalance', [who(i, base), '0x77']);
    for (let b = 0; b < CACHE + 200; b += 600) {
      const reads = [];
      for (let i = b; i < b + 600; i++) reads.push({ jsonrpc: '2.0', id: i, method: 'eth_getBalance', params: [who(i, 0xc000000), 'latest'] });
      const answers = (await n.post(JSON.stringify(reads))).json as { result?: string }[];
      assert.ok(answers.every((a) => a.result === '0x0'));
    }
    await n.rpc('evm_mine');
    const got = await Promise.all([0, 1, 49].map((i) => n.rpc<string>('eth_getBalance', [who(i, base), 'latest'])));
    assert.deepEqual(got, ['0x77', '0x77', '0x77']);
  });
});
