/**
 * In-process unit tests of the chain's modules, no server: the pool (ordering, gaps,
 * replacement), the log index (queries by address and topic, reorgs) and snapshots (revert
 * restores state, blocks, pool and clock).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { Address, bytesToHex, createAddressFromString, hexToBytes } from '@ethereumjs/util';
import { Interface } from 'ethers';
import { defaultConfig } from '../../src/chain/core/config.js';
import { makeCommon } from '../../src/chain/engine/common.js';
import { DevNode } from '../../src/chain/node.js';
import { TxPool, type PendingTx } from '../../src/chain/pool/txpool.js';
import { LATEST } from '../../src/chain/core/types.js';
import { ADDRS, artifact } from '../support/node.js';

const common = makeCommon(984n, 'prague');
const A = createAddressFromString(ADDRS[0]);
const B = createAddressFromString(ADDRS[1]);
let counter = 0;

/** A pending transaction from `from` (not signed: the pool looks at sender, nonce and fees only). */
function ptx(from: Address, nonce: bigint, tip = 1n, cap = 100n): PendingTx {
  const tx = createFeeMarket1559Tx({ nonce, to: ADDRS[2], gasLimit: 21_000n, maxFeePerGas: cap, maxPriorityFeePerGas: tip, value: BigInt(counter++) }, { common });
  const hash = new Uint8Array(32).fill(counter % 256);
  hash[0] = counter >> 8;
  return { tx, from, hash, hashHex: bytesToHex(hash) };
}

describe('the pool', () => {
  test('a gap splits a sender into pending and queued', () => {
    const pool = new TxPool();
    const [first] = [0n, 1n, 3n].map((n) => ptx(A, n)).map((p) => (pool.add(p), p));
    const { pending, queued } = pool.split(A.toString(), 0n);
    assert.deepEqual(pending.map((p) => p.tx.nonce), [0n, 1n]);
    assert.deepEqual(queued.map((p) => p.tx.nonce), [3n]);
    // Nonce 0 mined: it leaves the pool, and the state nonce moves to 1.
    pool.remove(first!.hashHex);
    assert.deepEqual(pool.split(A.toString(), 1n).pending.map((p) => p.tx.nonce), [1n]);
    pool.add(ptx(A, 2n));
    assert.deepEqual(pool.split(A.toString(), 1n).pending.map((p) => p.tx.nonce), [1n, 2n, 3n], 'filling the gap promotes the queued one');
  });

  test('fee order takes the best tip among sender heads, nonces stay in sequence; fifo keeps arrival', () => {
    const pool = new TxPool();
    pool.add(ptx(A, 0n, 1n));
    pool.add(ptx(A, 1n, 50n));
    pool.add(ptx(B, 0n, 10n));
    const nonces = new Map([
      [A.toString(), 0n],
      [B.toString(), 0n],
    ]);
    const byFees = pool.ordered(nonces, 'fees', 0n).map((p) => `${p.from.toString() === A.toString() ? 'A' : 'B'}${p.tx.nonce}`);
    assert.deepEqual(byFees, ['B0', 'A0', 'A1']);
    const fifo = pool.ordered(nonces, 'fifo', 0n).map((p) => `${p.from.toString() === A.toString() ? 'A' : 'B'}${p.tx.nonce}`);
    assert.deepEqual(fifo, ['A0', 'A1', 'B0']);
  });

  test('replacing needs 10% more fee cap and tip; the replaced one is handed back', () => {
    const pool = new TxPool();
    const first = ptx(A, 0n, 10n, 100n);
    pool.add(first);
    assert.throws(() => pool.add(ptx(A, 0n, 10n, 109n)), /replacement transaction underpriced/);
    assert.throws(() => pool.add(ptx(A, 0n, 10n, 200n)), /replacement transaction underpriced/);
    const better = ptx(A, 0n, 11n, 110n);
    assert.equal(pool.add(better), first);
    assert.equal(pool.size, 1);
    assert.equal(pool.has(first.hashHex), false);
  });
});

describe('the log index and snapshots, on a node without a server', () => {
  test('logs are found by address and topic, and a revert takes them out of the index', async () => {
    const node = await DevNode.create(defaultConfig({ accounts: 2 }));
    try {
      const events = artifact('Events');
      const hash = await node.intake.sendTransaction({ from: A, data: hexToBytes(events.bytecode as `0x${string}`) });
      const deployed = node.tx(bytesToHex(hash))!.receipt.contractAddress!;
      const snap = node.history.snapshot();
      const before = (await node.getAccount(A, LATEST)).balance;
      // many(uint256): emits that many logs.
      const data = hexToBytes(new Interface(events.abi).encodeFunctionData('many', [3n]) as `0x${string}`);
      await node.intake.sendTransaction({ from: A, to: deployed, data });
      const address = deployed.toString();
      const found = node.logs.query({ addresses: [address], topics: [] }, 0n, node.store.headNumber);
      assert.equal(found.length, 3);
      assert.equal(node.logs.query({ addresses: ['0x' + '00'.repeat(20)], topics: [] }, 0n, node.store.headNumber).length, 0);
      const topic0 = found[0]!.topics[0]!;
      assert.equal(node.logs.query({ addresses: [], topics: [[topic0]] }, 0n, node.store.headNumber).length, 3);
      assert.equal(await node.history.revert(snap), true);
      node.logs.sync();
      assert.equal(node.logs.query({ addresses: [address], topics: [] }, 0n, node.store.headNumber).length, 0);
      assert.equal((await node.getAccount(A, LATEST)).balance, before);
      assert.equal(await node.history.revert(snap), false, 'a snapshot is used up by its revert');
    } finally {
      node.close();
    }
  });

  test('a revert restores the pool and the clock as they were', async () => {
    const node = await DevNode.create(defaultConfig({ accounts: 2 }));
    try {
      await node.miner.setAutomine(false);
      const snap = node.history.snapshot();
      await node.controls.increaseTime(1000n);
      await node.intake.sendTransaction({ from: A, to: B, value: 1n });
      assert.equal(node.pool.size, 1);
      const offset = node.clock.offset;
      assert.equal(offset, 1000n);
      await node.history.revert(snap);
      assert.equal(node.pool.size, 0);
      assert.equal(node.clock.offset, 0n);
    } finally {
      node.close();
    }
  });
});
