/**
 * evm_snapshot / evm_revert of every kind of state a user can observe, one test per kind, each on
 * its own node: time, the next block's settings, fees, the pool, impersonation, the head with
 * balances, storage, code and nonces, polling filters and the mining mode. The README's "Test
 * controls" says a revert restores "state, blocks, receipts, logs, pool, time offset and mining
 * settings exactly"; the next block's settings come back as in the hardhat node (its snapshot holds
 * the next timestamp, base fee, coinbase and prevrandao). Impersonation and filters are not part of
 * a snapshot, in anvil and in the hardhat node alike, and survive a revert here too.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ADDRS, GWEI, chain, hex, type Chain } from './support.js';

const X = '0x00000000000000000000000000000000000000c1';
const Y = '0x00000000000000000000000000000000000000c2';
const RANDAO = `0x${'11'.repeat(32)}`;
const ZERO_WORD = `0x${'00'.repeat(32)}`;
/** The default --gas-price floor, 7 gwei: what eth_gasPrice answers on a fresh chain. */
const DEFAULT_GAS_PRICE = hex(7n * GWEI);

const wallNow = () => BigInt(Math.floor(Date.now() / 1000));
const DAY_S = 86_400n;

async function withChain(fn: (c: Chain) => Promise<void>, options = {}): Promise<void> {
  const c = await chain(options);
  try {
    await fn(c);
  } finally {
    await c.close();
  }
}

const latest = (c: Chain) => c.rpc('eth_getBlockByNumber', 'latest', false);
const mineTs = async (c: Chain) => {
  await c.rpc('evm_mine');
  return BigInt((await latest(c)).timestamp);
};

describe('snapshot and revert, kind by kind', () => {
  test('time: evm_increaseTime, evm_setNextBlockTimestamp and the block timestamp interval come back', () =>
    withChain(async (c) => {
      const day = 86_400n;
      // The offset.
      const s0 = await c.rpc('evm_snapshot');
      assert.equal(await c.rpc('evm_increaseTime', hex(100n * day)), 100 * 86_400);
      assert.ok((await mineTs(c)) - wallNow() >= 100n * day - 60n, 'the offset moved block time 100 days on');
      assert.equal(await c.rpc('evm_revert', s0), true);
      assert.equal(await c.rpc('evm_increaseTime', 0), 0, 'the offset is back to 0');
      assert.ok((await mineTs(c)) - wallNow() < day, 'blocks follow the wall clock again');

      const s4 = await c.rpc('evm_snapshot');
      await c.rpc('evm_setTime', Number(wallNow() + 30n * DAY_S));
      assert.ok((await c.rpc<number>('evm_increaseTime', 0)) >= 30 * 86_400 - 60, 'evm_setTime moved the offset');
      assert.equal(await c.rpc('evm_revert', s4), true);
      assert.equal(await c.rpc('evm_increaseTime', 0), 0, 'and the revert put it back');

      // The one-shot next timestamp: recorded while set, gone when set after the snapshot.
      const t = wallNow() + 50n * day;
      await c.rpc('evm_setNextBlockTimestamp', hex(t));
      const s1 = await c.rpc('evm_snapshot');
      assert.equal(await mineTs(c), t);
      assert.equal(await c.rpc('evm_revert', s1), true);
      assert.equal(await mineTs(c), t, 'the revert gave the unused one-shot timestamp back');
      const s2 = await c.rpc('evm_snapshot');
      await c.rpc('evm_setNextBlockTimestamp', hex(t + 10n * day));
      assert.equal(await c.rpc('evm_revert', s2), true);
      const after = await mineTs(c);
      assert.ok(after > t && after < t + day, `${after}: the timestamp set after the snapshot is forgotten`);

      // The interval.
      const s3 = await c.rpc('evm_snapshot');
      await c.rpc('anvil_setBlockTimestampInterval', 1000);
      const a = await mineTs(c);
      assert.equal((await mineTs(c)) - a, 1000n);
      assert.equal(await c.rpc('evm_revert', s3), true);
      const b = await mineTs(c);
      const d = (await mineTs(c)) - b;
      assert.ok(d >= 1n && d < 100n, `${d}: no interval after the revert`);
      // hardhat's name takes milliseconds.
      const s5 = await c.rpc('evm_snapshot');
      await c.rpc('hardhat_setBlockTimestampInterval', 5000);
      const e = await mineTs(c);
      assert.equal((await mineTs(c)) - e, 5n);
      assert.equal(await c.rpc('evm_revert', s5), true);
      const f = await mineTs(c);
      assert.notEqual((await mineTs(c)) - f, 5n);
    }));

  test('next-block settings: base fee, coinbase, prevrandao and gas limit come back', () =>
    withChain(async (c) => {
      const s0 = await c.rpc('evm_snapshot');
      await c.rpc('anvil_setNextBlockBaseFeePerGas', '0x7');
      await c.rpc('anvil_setCoinbase', X);
      await c.rpc('hardhat_setPrevRandao', RANDAO);
      await c.rpc('evm_setBlockGasLimit', hex(40_000_000));
      const s1 = await c.rpc('evm_snapshot');
      const settings = (b: any) => [b.baseFeePerGas, b.miner, b.mixHash, b.gasLimit];
      await c.rpc('evm_mine');
      const set = [hex(7), X, RANDAO, hex(40_000_000)];
      assert.deepEqual(settings(await latest(c)), set);
      assert.equal(await c.rpc('eth_coinbase'), X);
      assert.equal(await c.rpc('evm_revert', s1), true);
      await c.rpc('evm_mine');
      assert.deepEqual(settings(await latest(c)), set, 'all four back, the one-shot base fee too');
      assert.equal(await c.rpc('evm_revert', s0), true);
      await c.rpc('evm_mine');
      // Genesis has base fee 1 gwei and no gas used: EIP-1559 gives 7/8 of it.
      assert.deepEqual(settings(await latest(c)), [hex(875_000_000), `0x${'00'.repeat(20)}`, ZERO_WORD, hex(30_000_000)]);
      assert.equal(await c.rpc('eth_coinbase'), `0x${'00'.repeat(20)}`);
    }));

  test('fees: the min gas price (eth_gasPrice floor) comes back', () =>
    withChain(async (c) => {
      assert.equal(await c.rpc('eth_gasPrice'), DEFAULT_GAS_PRICE);
      const s0 = await c.rpc('evm_snapshot');
      await c.rpc('anvil_setMinGasPrice', hex(1000n * GWEI));
      assert.equal(await c.rpc('eth_gasPrice'), hex(1000n * GWEI));
      const s1 = await c.rpc('evm_snapshot');
      await c.rpc('anvil_setMinGasPrice', '0x0');
      // No floor: the next base fee (7/8 gwei) plus the 1 gwei tip.
      assert.equal(await c.rpc('eth_gasPrice'), hex(1_875_000_000));
      assert.equal(await c.rpc('evm_revert', s1), true);
      assert.equal(await c.rpc('eth_gasPrice'), hex(1000n * GWEI));
      assert.equal(await c.rpc('evm_revert', s0), true);
      assert.equal(await c.rpc('eth_gasPrice'), DEFAULT_GAS_PRICE);
    }));

  test('the pool: exactly the transactions it held come back, in order', () =>
    withChain(
      async (c) => {
        const tx = (who: number, value: number) => ({ from: ADDRS[who], to: Y, value: hex(value), gas: '0x5208' });
        const a = await c.rpc('eth_sendTransaction', tx(0, 1));
        const b = await c.rpc('eth_sendTransaction', tx(1, 2));
        const s0 = await c.rpc('evm_snapshot');
        await c.rpc('anvil_dropTransaction', a);
        const later = await c.rpc('eth_sendTransaction', tx(2, 4));
        await c.rpc('eth_sendTransaction', tx(1, 8));
        assert.deepEqual(await c.rpc('txpool_status'), { pending: '0x3', queued: '0x0' });
        assert.equal(await c.rpc('evm_revert', s0), true);
        assert.deepEqual(await c.rpc('txpool_status'), { pending: '0x2', queued: '0x0' });
        assert.equal((await c.rpc('eth_getTransactionByHash', a)).hash, a);
        assert.equal(await c.rpc('eth_getTransactionByHash', later), null);
        assert.equal(await c.rpc('eth_getTransactionCount', ADDRS[1], 'pending'), '0x1');
        await c.rpc('evm_mine');
        assert.deepEqual((await latest(c)).transactions, [a, b]);
        assert.equal(await c.rpc('eth_getBalance', Y, 'latest'), '0x3');
        // A pool emptied by mining comes back full.
        const s1 = await c.rpc('evm_snapshot');
        const d = await c.rpc('eth_sendTransaction', tx(0, 16));
        const s2 = await c.rpc('evm_snapshot');
        await c.rpc('evm_mine');
        assert.deepEqual(await c.rpc('txpool_status'), { pending: '0x0', queued: '0x0' });
        assert.equal(await c.rpc('evm_revert', s2), true);
        assert.deepEqual(await c.rpc('txpool_status'), { pending: '0x1', queued: '0x0' });
        assert.equal(await c.rpc('eth_getTransactionReceipt', d), null);
        assert.equal(await c.rpc('evm_revert', s1), true);
        assert.deepEqual(await c.rpc('txpool_content'), { pending: {}, queued: {} });
        // Queued transactions too: a gap filled and mined after the snapshot is open again after it.
        const nonce = Number(await c.num('eth_getTransactionCount', ADDRS[0], 'latest'));
        await c.rpc('eth_sendTransaction', { ...tx(0, 1), nonce: hex(nonce + 1) });
        const s3 = await c.rpc('evm_snapshot');
        await c.rpc('eth_sendTransaction', { ...tx(0, 1), nonce: hex(nonce) });
        await c.rpc('evm_mine');
        assert.deepEqual(await c.rpc('txpool_status'), { pending: '0x0', queued: '0x0' });
        assert.equal(await c.rpc('evm_revert', s3), true);
        assert.deepEqual(await c.rpc('txpool_status'), { pending: '0x0', queued: '0x1' });
        assert.deepEqual(Object.keys((await c.rpc('txpool_content')).queued[ADDRS[0]]), [String(nonce + 1)]);
      },
      { mining: false },
    ));

  test('impersonation and auto-impersonation are kept by a revert, as in anvil and the hardhat node', () =>
    withChain(async (c) => {
      await c.rpc('anvil_setBalance', X, hex(10n ** 18n));
      await c.rpc('anvil_setBalance', Y, hex(10n ** 18n));
      const s0 = await c.rpc('evm_snapshot');
      await c.rpc('anvil_impersonateAccount', X);
      await c.rpc('anvil_autoImpersonateAccount', true);
      assert.equal(await c.rpc('evm_revert', s0), true);
      const hx = await c.rpc('eth_sendTransaction', { from: X, to: Y, value: '0x1' });
      assert.equal((await c.rpc('eth_getTransactionReceipt', hx)).from, X);
      const hy = await c.rpc('eth_sendTransaction', { from: Y, to: X, value: '0x1' });
      assert.equal((await c.rpc('eth_getTransactionReceipt', hy)).from, Y, 'auto-impersonation kept');

      // And the other way: ended after the snapshot, it stays ended.
      const s1 = await c.rpc('evm_snapshot');
      await c.rpc('anvil_autoImpersonateAccount', false);
      await c.rpc('anvil_stopImpersonatingAccount', X);
      assert.equal(await c.rpc('evm_revert', s1), true);
      for (const from of [X, Y]) {
        await c.fails('eth_sendTransaction', [{ from, to: ADDRS[0], value: '0x1' }], -32000, new RegExp(`^unknown account ${from}: not a dev account and not impersonated`));
      }
    }));

  test('the head, balances, storage, code and nonces come back; the dropped blocks and transactions are gone', () =>
    withChain(async (c) => {
      await c.rpc('evm_mine');
      const head = await latest(c);
      const s0 = await c.rpc('evm_snapshot');
      const tx = await c.rpc('eth_sendTransaction', { from: ADDRS[0], to: Y, value: '0x5' });
      await c.rpc('anvil_setBalance', X, '0x99');
      await c.rpc('anvil_setStorageAt', X, '0x1', `0x${'22'.repeat(32)}`);
      await c.rpc('anvil_setCode', X, '0x6001600055');
      await c.rpc('anvil_setNonce', X, '0x9');
      await c.rpc('anvil_mine', 3);
      assert.equal(await c.rpc('eth_blockNumber'), '0x5');
      assert.equal(await c.rpc('evm_revert', s0), true);
      assert.equal(await c.rpc('eth_blockNumber'), '0x1');
      assert.deepEqual(await latest(c), head);
      assert.equal(await c.rpc('eth_getBlockByNumber', '0x2', false), null);
      assert.equal(await c.rpc('eth_getTransactionByHash', tx), null);
      assert.equal(await c.rpc('eth_getTransactionReceipt', tx), null);
      assert.equal(await c.rpc('eth_getBalance', Y, 'latest'), '0x0');
      assert.equal(await c.rpc('eth_getBalance', X, 'latest'), '0x0');
      assert.equal(await c.rpc('eth_getStorageAt', X, '0x1', 'latest'), ZERO_WORD);
      assert.equal(await c.rpc('eth_getCode', X, 'latest'), '0x');
      assert.equal(await c.rpc('eth_getTransactionCount', X, 'latest'), '0x0');
      assert.equal(await c.rpc('eth_getTransactionCount', ADDRS[0], 'latest'), '0x0');
      assert.equal(await c.rpc('eth_getBalance', ADDRS[0], 'latest'), hex(10_000n * 10n ** 18n));
      // A revert uses up that id and every later one.
      assert.equal(await c.rpc('evm_revert', s0), false);
    }));

  test('polling filters: kept by a revert; block filters go on from the restored head', () =>
    withChain(async (c) => {
      const before = await c.rpc('eth_newBlockFilter');
      const pending = await c.rpc('eth_newPendingTransactionFilter');
      const s0 = await c.rpc('evm_snapshot');
      const made = await c.rpc('eth_newBlockFilter');
      await c.rpc('evm_mine');
      await c.rpc('evm_mine');
      assert.equal((await c.rpc<string[]>('eth_getFilterChanges', before)).length, 2);
      assert.equal(await c.rpc('evm_revert', s0), true);
      assert.deepEqual(await c.rpc('eth_getFilterChanges', before), []);
      const tx = await c.rpc('eth_sendTransaction', { from: ADDRS[0], to: Y, value: '0x1' });
      const head = (await latest(c)).hash;
      assert.equal(await c.rpc('eth_blockNumber'), '0x1');
      assert.deepEqual(await c.rpc('eth_getFilterChanges', before), [head]);
      assert.equal((await c.rpc<string[]>('eth_getFilterChanges', made)).at(-1), head, 'a filter made after the snapshot is still installed');
      assert.deepEqual(await c.rpc('eth_getFilterChanges', pending), [tx]);
      assert.equal(await c.rpc('eth_uninstallFilter', made), true);
    }));

  test('mining mode: automine and interval mining come back', () =>
    withChain(async (c) => {
      const s0 = await c.rpc('evm_snapshot');
      // evm_setAutomine does not wait its turn behind the snapshot's record (the next test): a call
      // that does lets the record be taken first.
      await c.rpc('evm_increaseTime', 0);
      await c.rpc('evm_setAutomine', false);
      assert.equal(await c.rpc('anvil_getAutomine'), false);
      const s1 = await c.rpc('evm_snapshot');
      // An hour between blocks: none is mined while the test runs.
      await c.rpc('anvil_setIntervalMining', 3600);
      assert.equal(await c.rpc('anvil_getIntervalMining'), 3600);
      const s2 = await c.rpc('evm_snapshot');
      await c.rpc('evm_setIntervalMining', 0);
      await c.rpc('evm_setAutomine', true);
      assert.deepEqual([await c.rpc('anvil_getAutomine'), await c.rpc('anvil_getIntervalMining')], [true, null]);
      assert.equal(await c.rpc('evm_revert', s2), true);
      assert.deepEqual([await c.rpc('anvil_getAutomine'), await c.rpc('anvil_getIntervalMining')], [false, 3600]);
      assert.equal(await c.rpc('evm_revert', s1), true);
      assert.deepEqual([await c.rpc('anvil_getAutomine'), await c.rpc('anvil_getIntervalMining')], [false, null]);
      const waiting = await c.rpc('eth_sendTransaction', { from: ADDRS[0], to: Y, value: '0x1' });
      assert.equal(await c.rpc('eth_getTransactionReceipt', waiting), null, 'automine off: it waits');
      assert.equal(await c.rpc('evm_revert', s0), true);
      assert.deepEqual([await c.rpc('anvil_getAutomine'), await c.rpc('anvil_getIntervalMining')], [true, null]);
      const mined = await c.rpc('eth_sendTransaction', { from: ADDRS[0], to: Y, value: '0x1' });
      assert.equal((await c.rpc('eth_getTransactionReceipt', mined)).blockNumber, '0x1', 'automine on again');
    }));

  test('interval mining: a revert starts and stops its timer as the snapshot had it', () =>
    withChain(async (c) => {
      const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
      const height = () => c.num('eth_blockNumber');
      const s0 = await c.rpc('evm_snapshot');
      await c.rpc('evm_setIntervalMining', 100);
      const s1 = await c.rpc('evm_snapshot');
      await c.rpc('evm_setIntervalMining', 0);
      const stopped = await height();
      await sleep(300);
      assert.equal(await height(), stopped, 'interval mining off: no block');
      assert.equal(await c.rpc('evm_revert', s1), true);
      const from = await height();
      for (let i = 0; i < 500 && (await height()) < from + 2n; i++) await sleep(10);
      assert.ok((await height()) >= from + 2n, 'the revert restarted the 100 ms timer');
      assert.equal(await c.rpc('evm_revert', s0), true);
      const at = await height();
      await sleep(300);
      assert.equal(await height(), at, 'the revert stopped it again');
    }));

  test('a snapshot holds the automine setting of when it was asked for, not of a evm_setAutomine sent after its answer', () =>
    withChain(async (c) => {
      for (const [on, off] of [[true, false], [false, true]]) {
        await c.rpc('evm_setAutomine', on);
        await c.rpc('anvil_setBalance', X, '0x1');
        const id = await c.rpc('evm_snapshot');
        await c.rpc('evm_setAutomine', off);
        assert.equal(await c.rpc('evm_revert', id), true);
        assert.equal(await c.rpc('anvil_getAutomine'), on, `snapshot taken with automine ${on}`);
      }
    }));
});
