/**
 * The pool, in process: block order by tip and nonce, nonce gaps (queued vs pending), replacement,
 * the txpool_* views, transactions leaving on mine and on anvil_dropTransaction, and the pool as
 * automine goes off and on.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getAddress } from 'viem';
import { ADDRS, GWEI, chain, hex, type Chain } from './support.js';

const TO = '0x00000000000000000000000000000000000000b0';

/** A transfer of `value` wei from dev account `who`, every field given (nothing estimated). */
const transfer = (who: number, nonce: number, tip: bigint, extra: Record<string, string> = {}) => ({
  from: ADDRS[who],
  to: TO,
  value: '0x1',
  gas: '0x5208',
  nonce: hex(nonce),
  maxFeePerGas: hex(100n * GWEI),
  maxPriorityFeePerGas: hex(tip),
  ...extra,
});

describe('pool', () => {
  let c: Chain;
  let snap: string;
  before(async () => {
    c = await chain({ mining: false });
    snap = await c.rpc('evm_snapshot');
  });
  after(() => c.close());
  /** Each test starts from the empty chain with mining off. */
  const fresh = async () => {
    assert.equal(await c.rpc('evm_revert', snap), true);
    snap = await c.rpc('evm_snapshot');
  };
  const send = (tx: object) => c.rpc<string>('eth_sendTransaction', tx);
  const status = () => c.rpc<{ pending: string; queued: string }>('txpool_status');
  const blockHashes = async (tag = 'latest') => (await c.rpc<{ transactions: string[] }>('eth_getBlockByNumber', tag, false)).transactions;

  test('a block takes the highest tip first, each sender in nonce order', async () => {
    await fresh();
    const a0 = await send(transfer(0, 0, 1n * GWEI));
    const a1 = await send(transfer(0, 1, 5n * GWEI));
    const b0 = await send(transfer(1, 0, 3n * GWEI));
    const d0 = await send(transfer(2, 0, 2n * GWEI));
    assert.deepEqual(await status(), { pending: '0x4', queued: '0x0' });
    assert.equal(await c.rpc('eth_blockNumber'), '0x0', 'mining is off');
    await c.rpc('evm_mine');
    // a1 pays the most but waits for a0, which pays the least.
    assert.deepEqual(await blockHashes(), [b0, d0, a0, a1]);
    assert.deepEqual(await status(), { pending: '0x0', queued: '0x0' }, 'mined transactions leave the pool');
    assert.deepEqual(await c.rpc('txpool_content'), { pending: {}, queued: {} });
    const receipt = await c.rpc('eth_getTransactionReceipt', a1);
    assert.equal(receipt.blockNumber, '0x1');
    assert.equal(receipt.transactionIndex, '0x3');
  });

  test('a transaction whose nonce anvil_setNonce moved past leaves the pool with the next block, as in anvil', async () => {
    await fresh();
    const stale = await send(transfer(0, 0, 1n * GWEI));
    const gap = await send(transfer(0, 3, 1n * GWEI));
    await c.rpc('anvil_setNonce', ADDRS[0], '0x2');
    // Nonce 0 is behind the account and nonce 3 behind a gap: neither can go into a block.
    assert.deepEqual(await status(), { pending: '0x0', queued: '0x2' });
    await c.rpc('evm_mine');
    assert.deepEqual(await blockHashes(), []);
    assert.deepEqual(await status(), { pending: '0x0', queued: '0x1' }, 'the stale one is gone, the one behind the gap waits');
    const content = await c.rpc<{ queued: Record<string, Record<string, { hash: string }>> }>('txpool_content');
    assert.deepEqual(Object.values(content.queued).flatMap((byNonce) => Object.values(byNonce).map((t) => t.hash)), [gap]);
    assert.equal(await c.rpc('eth_getTransactionByHash', stale), null);
  });

  test('equal tips go in arrival order; a legacy gas price competes by what it leaves over the base fee', async () => {
    await fresh();
    const same = [];
    for (const who of [2, 0, 1]) same.push(await send(transfer(who, 0, GWEI)));
    await c.rpc('evm_mine');
    assert.deepEqual(await blockHashes(), same);
    // Base fee now 7/8 gwei: a 4 gwei legacy price leaves 3.125 gwei, more than a 3 gwei tip.
    const tip3 = await send(transfer(2, 1, 3n * GWEI));
    const legacy = await send({ from: ADDRS[1], to: TO, value: '0x1', gas: '0x5208', nonce: '0x1', gasPrice: hex(4n * GWEI) });
    await c.rpc('evm_mine');
    assert.deepEqual(await blockHashes(), [legacy, tip3]);
  });

  test('--order fifo: arrival order', async () => {
    const f = await chain({ mining: false, order: 'fifo' });
    try {
      const hashes = [];
      for (const [who, tip] of [[0, 1n], [1, 9n], [2, 5n]] as const) hashes.push(await f.rpc('eth_sendTransaction', transfer(who, 0, tip * GWEI)));
      await f.rpc('evm_mine');
      assert.deepEqual((await f.rpc('eth_getBlockByNumber', 'latest', false)).transactions, hashes);
    } finally {
      await f.close();
    }
  });

  test('a nonce gap: the later nonces wait in queued until it is filled', async () => {
    await fresh();
    const h0 = await send(transfer(0, 0, GWEI));
    const h2 = await send(transfer(0, 2, GWEI));
    const h3 = await send(transfer(0, 3, GWEI));
    assert.deepEqual(await status(), { pending: '0x1', queued: '0x2' });
    const sender = getAddress(ADDRS[0]);
    const content = await c.rpc('txpool_content');
    assert.deepEqual(Object.keys(content.pending[sender]), ['0']);
    assert.deepEqual(Object.keys(content.queued[sender]), ['2', '3']);
    assert.equal(content.pending[sender]['0'].hash, h0);
    assert.equal(content.queued[sender]['2'].hash, h2);
    assert.equal(content.queued[sender]['3'].nonce, '0x3');
    const inspect = await c.rpc('txpool_inspect');
    assert.equal(inspect.queued[sender]['3'], `${getAddress(TO)}: 1 wei + 21000 gas × 100000000000 wei`);
    assert.deepEqual(Object.keys(inspect.pending[sender]), ['0']);
    const from = await c.rpc('txpool_contentFrom', ADDRS[0]);
    assert.deepEqual([Object.keys(from.pending), Object.keys(from.queued)], [['0'], ['2', '3']]);
    assert.equal(await c.rpc('eth_getTransactionCount', ADDRS[0], 'pending'), '0x1', 'pending counts only the run without a gap');

    // Mining now takes only what can run: the queued ones stay.
    await c.rpc('evm_mine');
    assert.deepEqual(await blockHashes(), [h0]);
    assert.deepEqual(await status(), { pending: '0x0', queued: '0x2' });

    const h1 = await send(transfer(0, 1, GWEI));
    assert.deepEqual(await status(), { pending: '0x3', queued: '0x0' }, 'filling the gap promotes the rest');
    await c.rpc('evm_mine');
    assert.deepEqual(await blockHashes(), [h1, h2, h3]);
    assert.deepEqual(await status(), { pending: '0x0', queued: '0x0' });
  });

  test('replacement: under 10% more fee cap and tip is refused; 10% more on both replaces', async () => {
    await fresh();
    const base = { maxFeePerGas: hex(10n * GWEI) };
    const old = await send(transfer(0, 0, 2n * GWEI, base));
    await c.fails('eth_sendTransaction', [transfer(0, 0, 2n * GWEI, base)], -32000, /already known/);
    await c.fails('eth_sendTransaction', [transfer(0, 0, 2n * GWEI, { ...base, value: '0x2' })], -32000, 'replacement transaction underpriced');
    // 10% more tip, but the fee cap only 5% more.
    await c.fails('eth_sendTransaction', [transfer(0, 0, 22n * GWEI / 10n, { maxFeePerGas: hex(105n * GWEI / 10n) })], -32000, 'replacement transaction underpriced');
    // 10% more fee cap, the tip 5% more.
    await c.fails('eth_sendTransaction', [transfer(0, 0, 21n * GWEI / 10n, { maxFeePerGas: hex(11n * GWEI) })], -32000, 'replacement transaction underpriced');
    assert.equal((await c.rpc('eth_getTransactionByHash', old)).hash, old, 'refusals leave the old one in place');

    const bumped = await send(transfer(0, 0, 22n * GWEI / 10n, { maxFeePerGas: hex(11n * GWEI), value: '0x7' }));
    assert.notEqual(bumped, old);
    assert.deepEqual(await status(), { pending: '0x1', queued: '0x0' });
    assert.equal(await c.rpc('eth_getTransactionByHash', old), null, 'the replaced one is gone');
    assert.equal((await c.rpc('txpool_content')).pending[getAddress(ADDRS[0])]['0'].hash, bumped);
    await c.rpc('evm_mine');
    assert.deepEqual(await blockHashes(), [bumped]);
    assert.equal(await c.rpc('eth_getBalance', TO, 'latest'), '0x7');
  });

  test('a queued transaction is replaced by the same rule', async () => {
    await fresh();
    const old = await send(transfer(0, 3, 2n * GWEI, { maxFeePerGas: hex(10n * GWEI) }));
    await c.fails('eth_sendTransaction', [transfer(0, 3, 2n * GWEI, { maxFeePerGas: hex(10n * GWEI), value: '0x2' })], -32000, 'replacement transaction underpriced');
    const bumped = await send(transfer(0, 3, 3n * GWEI, { maxFeePerGas: hex(11n * GWEI) }));
    assert.deepEqual(await status(), { pending: '0x0', queued: '0x1' });
    assert.equal(await c.rpc('eth_getTransactionByHash', old), null);
    assert.equal((await c.rpc('txpool_content')).queued[getAddress(ADDRS[0])]['3'].hash, bumped);
  });

  test('anvil_rollback: the dropped blocks\' transactions do not come back to the pool (as in anvil)', async () => {
    await fresh();
    const h = await send(transfer(0, 0, GWEI));
    await c.rpc('evm_mine');
    assert.equal((await c.rpc('eth_getTransactionReceipt', h)).blockNumber, '0x1');
    await c.rpc('anvil_rollback', 1);
    assert.equal(await c.rpc('eth_blockNumber'), '0x0');
    assert.deepEqual(await status(), { pending: '0x0', queued: '0x0' });
    assert.equal(await c.rpc('eth_getTransactionByHash', h), null);
    assert.equal(await c.rpc('eth_getTransactionCount', ADDRS[0], 'pending'), '0x0');
  });

  test('anvil_dropTransaction removes one transaction; anvil_dropAllTransactions the rest', async () => {
    await fresh();
    const a = await send(transfer(0, 0, GWEI));
    const b = await send(transfer(1, 0, GWEI));
    const d = await send(transfer(2, 0, GWEI));
    assert.equal(await c.rpc('anvil_dropTransaction', a), a, 'answers the dropped hash, as anvil');
    assert.equal(await c.rpc('anvil_dropTransaction', a), null, 'null once it is not in the pool');
    assert.deepEqual(await status(), { pending: '0x2', queued: '0x0' });
    assert.equal(await c.rpc('eth_getTransactionByHash', a), null);
    assert.equal(await c.rpc('eth_getTransactionCount', ADDRS[0], 'pending'), '0x0');
    await c.rpc('evm_mine');
    assert.deepEqual([...(await blockHashes())].sort(), [b, d].sort());

    await send(transfer(0, 0, GWEI));
    await send(transfer(0, 1, GWEI));
    assert.equal(await c.rpc('anvil_dropAllTransactions'), null);
    assert.deepEqual(await status(), { pending: '0x0', queued: '0x0' });
    await c.rpc('evm_mine');
    assert.deepEqual(await blockHashes(), []);
  });

  test('dropping a pending transaction sends the later nonces of its sender back to queued', async () => {
    await fresh();
    const a0 = await send(transfer(0, 0, GWEI));
    await send(transfer(0, 1, GWEI));
    assert.deepEqual(await status(), { pending: '0x2', queued: '0x0' });
    await c.rpc('anvil_dropTransaction', a0);
    assert.deepEqual(await status(), { pending: '0x0', queued: '0x1' });
    await c.rpc('evm_mine');
    assert.deepEqual(await blockHashes(), [], 'nonce 1 cannot run without nonce 0');
  });

  test('the pool across automine off and on', async () => {
    await fresh();
    const p0 = await send(transfer(0, 0, GWEI));
    const p1 = await send(transfer(1, 0, GWEI));
    assert.deepEqual(await status(), { pending: '0x2', queued: '0x0' });
    await c.rpc('evm_setAutomine', true);
    try {
      assert.equal(await c.rpc('hardhat_getAutomine'), true);
      // Turning automine on mines what waited, in one block.
      assert.equal(await c.rpc('eth_blockNumber'), '0x1');
      assert.deepEqual([...(await blockHashes())].sort(), [p0, p1].sort());
      assert.deepEqual(await status(), { pending: '0x0', queued: '0x0' });
      const n = await send(transfer(2, 0, GWEI));
      assert.equal((await c.rpc('eth_getTransactionReceipt', n)).blockNumber, '0x2', 'the next one is mined at once, in its own block');
      // A gap still queues under automine.
      const q = await send(transfer(0, 2, GWEI));
      assert.deepEqual(await status(), { pending: '0x0', queued: '0x1' });
      await send(transfer(0, 1, GWEI));
      assert.ok(await c.rpc('eth_getTransactionReceipt', q), 'the gap filled, the queued one is mined');
      await c.rpc('evm_setAutomine', false);
      const w = await send(transfer(0, 3, GWEI));
      assert.equal(await c.rpc('eth_getTransactionReceipt', w), null, 'automine off again: it waits');
      assert.deepEqual(await status(), { pending: '0x1', queued: '0x0' });
    } finally {
      await c.rpc('evm_setAutomine', false);
    }
  });

  test('interval mining takes what waits in the pool', async () => {
    await fresh();
    const h = await send(transfer(0, 0, GWEI));
    const q = await send(transfer(1, 1, GWEI));
    await c.rpc('evm_setIntervalMining', 100);
    try {
      let receipt = null;
      for (let i = 0; i < 500 && receipt === null; i++) {
        await new Promise((r) => setTimeout(r, 10));
        receipt = await c.rpc('eth_getTransactionReceipt', h);
      }
      assert.ok(receipt, 'mined by the timer');
    } finally {
      await c.rpc('evm_setIntervalMining', 0);
    }
    assert.deepEqual(await status(), { pending: '0x0', queued: '0x1' }, 'the one behind a gap still waits');
    assert.equal(await c.rpc('eth_getTransactionReceipt', q), null);
  });
});
