/**
 * Files in this node's first state format (version 1, written before the node wrote anvil's
 * format) still load whole, and what they hold survives a dump in the new format.
 * fixtures/state/v1.json was written by that version: contracts with storage and logs, a revert, an
 * impersonated sender, a run of empty blocks, cheats, a clock an hour ahead and a pooled transaction.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { startTestNode, type TestNode } from '../support/node.js';
import { block } from './helpers.js';

const FIXTURE = fileURLToPath(new URL('../../../fixtures/state/v1.json', import.meta.url));

async function receipts(n: TestNode, hashes: string[]): Promise<unknown[]> {
  return Promise.all(hashes.map((h) => n.rpc('eth_getTransactionReceipt', [h])));
}

describe("this node's first state format", () => {
  test('a version-1 file loads whole, and its dump in the new format loads the same', async () => {
    const doc = JSON.parse(readFileSync(FIXTURE, 'utf8'));
    assert.equal(doc.version, 1);
    // Written by the version that started on prague (its default then); a file keeps its fork.
    const prague = { hardfork: 'prague' as const };
    const [a, b] = await Promise.all([startTestNode({ loadState: FIXTURE, chain: prague }), startTestNode({ chain: prague })]);
    try {
      assert.equal(a.loaded?.replacedChain, true);
      assert.equal(await a.rpc('eth_blockNumber'), doc.head.number);
      assert.equal((await block(a, 'latest')).hash, doc.head.hash);
      for (const r of doc.receipts) {
        const got = await a.rpc('eth_getTransactionReceipt', [r.transactionHash]);
        assert.equal(got.status, '0x' + r.status.toString(16));
        assert.equal(got.gasUsed, r.gasUsed);
        assert.equal(got.cumulativeGasUsed, r.cumulativeGasUsed);
        assert.equal(got.effectiveGasPrice, r.effectiveGasPrice);
        assert.equal(got.contractAddress, r.contractAddress);
        assert.deepEqual(got.logs.map((l: any) => [l.address, l.topics, l.data]), r.logs.map((l: any) => [l.address, l.topics, l.data]));
      }
      for (const [address, account] of Object.entries<any>(doc.accounts)) {
        assert.equal(BigInt(await a.rpc('eth_getBalance', [address, 'latest'])), BigInt(account.balance), `balance of ${address}`);
        assert.equal(Number(await a.rpc('eth_getTransactionCount', [address, 'latest'])), account.nonce, `nonce of ${address}`);
        assert.equal(await a.rpc('eth_getCode', [address, 'latest']), account.code, `code of ${address}`);
        for (const [slot, value] of Object.entries(account.storage)) assert.equal(await a.rpc('eth_getStorageAt', [address, slot, 'latest']), value);
      }
      const pooled = doc.pool[0].hash;
      assert.equal((await a.rpc('eth_getTransactionByHash', [pooled])).blockNumber, null, 'the pool is back');
      const run = doc.blocks.find((e: any) => e.emptyRun !== undefined);
      const inRun = Number(run.number) + 10;

      // The same chain through the new format.
      assert.equal(await b.rpc('anvil_loadState', [await a.rpc('anvil_dumpState')]), true);
      assert.equal(await b.rpc('eth_blockNumber'), doc.head.number);
      for (const k of [0, 1, 5, inRun, Number(doc.head.number)]) assert.deepEqual(await block(b, k, true), await block(a, k, true), `block ${k}`);
      const hashes = doc.transactions.map((t: any) => t.hash);
      assert.deepEqual(await receipts(b, hashes), await receipts(a, hashes));
      assert.deepEqual(await b.rpc('eth_getTransactionByHash', [pooled]), await a.rpc('eth_getTransactionByHash', [pooled]));
      // Clock an hour ahead on both, and the pooled transaction mined with the next block.
      for (const n of [a, b]) {
        await n.rpc('evm_mine');
        assert.ok(Number((await block(n, 'latest')).timestamp) >= Math.floor(Date.now() / 1000) + 3500);
        assert.equal((await n.rpc('eth_getTransactionReceipt', [pooled])).status, '0x1');
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  test('each block is read under the rules of its own number and time', async () => {
    const doc = JSON.parse(readFileSync(FIXTURE, 'utf8'));
    const plain = await startTestNode({ loadState: FIXTURE, chain: { hardfork: 'prague' } });
    const at = async (k: number) => BigInt((await block(plain, k)).timestamp);
    const [genesis, third] = [await at(0), await at(3)];
    await plain.close();
    // Prague from the file's genesis on: the same chain, every block read under prague.
    const same = await startTestNode({ loadState: FIXTURE, chain: { hardfork: 'prague', schedule: { forks: [{ fork: 'cancun', block: 0n }, { fork: 'prague', time: genesis }] } } });
    try {
      assert.equal((await block(same, 'latest')).hash, doc.head.hash);
    } finally {
      await same.close();
    }
    // Prague only from block 3's time on: the blocks before are read under cancun, which has no
    // requests hash, so the file (written under prague from genesis) is refused naming the first.
    await assert.rejects(
      startTestNode({ loadState: FIXTURE, chain: { hardfork: 'prague', schedule: { forks: [{ fork: 'cancun', block: 0n }, { fork: 'prague', time: third }] } } }),
      /blocks\[0\]\.rlp is not a valid block/,
    );
  });
});
