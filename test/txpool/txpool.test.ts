import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { HDNodeWallet, Wallet, getAddress, parseEther, type TransactionRequest } from 'ethers';
import { dropTransaction } from '../../src/chain/controls/cheats.js';
import { ADDRS, KEYS, startTestNode, type TestNode } from '../support/node.js';

const GWEI = 1_000_000_000n;

describe('txpool: pending, queued, promotion, replacement, limits', () => {
  let n: TestNode;
  const wallets = KEYS.map((k) => new Wallet(k));

  before(async () => {
    n = await startTestNode();
  });
  after(async () => {
    await n.close();
  });

  /** Sign with explicit fields (no provider): EIP-1559 unless gasPrice is given. */
  async function signed(who: number, fields: TransactionRequest): Promise<string> {
    const tx: TransactionRequest = { chainId: 984, to: ADDRS[2], value: 1n, gasLimit: 21_000n, ...fields };
    if (tx.gasPrice === undefined) {
      tx.maxFeePerGas ??= 10n * GWEI;
      tx.maxPriorityFeePerGas ??= GWEI;
      tx.type = 2;
    }
    return wallets[who].signTransaction(tx);
  }
  const send = (raw: string) => n.rpc<string>('eth_sendRawTransaction', [raw]);
  const nonceOf = async (who: number) => Number(BigInt(await n.rpc('eth_getTransactionCount', [ADDRS[who], 'latest'])));
  const status = () => n.rpc<{ pending: string; queued: string }>('txpool_status');

  test('a future nonce waits in queued under automine; filling the gap mines it and the ones it promotes', async () => {
    const base = await nonceOf(1);
    const head = Number(BigInt(await n.rpc('eth_blockNumber')));
    const h2 = await send(await signed(1, { nonce: base + 2 }));
    const h1 = await send(await signed(1, { nonce: base + 1, value: 5n }));
    assert.deepEqual(await status(), { pending: '0x0', queued: '0x2' });
    assert.equal(await n.rpc('eth_getTransactionReceipt', [h1]), null);
    assert.equal(Number(BigInt(await n.rpc('eth_blockNumber'))), head, 'nothing mined while the gap is open');

    const content = await n.rpc('txpool_content');
    const sender = getAddress(ADDRS[1]);
    assert.deepEqual(Object.keys(content.queued), [sender], 'keyed by checksummed sender');
    assert.deepEqual(Object.keys(content.queued[sender]), [String(base + 1), String(base + 2)], 'keyed by decimal nonce');
    const q1 = content.queued[sender][String(base + 1)];
    assert.equal(q1.hash, h1);
    assert.equal(q1.blockHash, null);
    assert.equal(q1.blockNumber, null);
    assert.equal(q1.transactionIndex, null);
    assert.equal(q1.from, ADDRS[1].toLowerCase());
    assert.equal(q1.nonce, '0x' + (base + 1).toString(16));
    assert.equal(q1.value, '0x5');
    assert.equal(q1.gasPrice, '0x' + (10n * GWEI).toString(16), 'fee cap while pending, as geth');
    assert.deepEqual(content.pending, {});

    const inspect = await n.rpc('txpool_inspect');
    assert.equal(inspect.queued[sender][String(base + 1)], `${getAddress(ADDRS[2])}: 5 wei + 21000 gas × 10000000000 wei`);
    const from = await n.rpc('txpool_contentFrom', [ADDRS[1]]);
    assert.deepEqual(Object.keys(from.queued), [String(base + 1), String(base + 2)]);
    assert.deepEqual(from.pending, {});
    assert.deepEqual(await n.rpc('txpool_contentFrom', [ADDRS[0]]), { pending: {}, queued: {} });

    const h0 = await send(await signed(1, { nonce: base }));
    const receipts = await Promise.all([h0, h1, h2].map((h) => n.rpc('eth_getTransactionReceipt', [h])));
    assert.deepEqual(
      receipts.map((r) => Number(BigInt(r.blockNumber))),
      [head + 1, head + 2, head + 3],
      'one block each, in nonce order',
    );
    assert.deepEqual(await status(), { pending: '0x0', queued: '0x0' });
    assert.equal(await nonceOf(1), base + 3);
  });

  test('replacing a pooled transaction needs 10% more fee cap and tip; the old one leaves the pool', async () => {
    const base = await nonceOf(2);
    const oldHash = await send(await signed(2, { nonce: base + 1, maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: 2n * GWEI }));
    for (const fees of [
      { maxFeePerGas: 10n * GWEI + 1n, maxPriorityFeePerGas: 3n * GWEI }, // cap +0%
      { maxFeePerGas: 11n * GWEI - 1n, maxPriorityFeePerGas: 3n * GWEI }, // cap just under +10%
      { maxFeePerGas: 20n * GWEI, maxPriorityFeePerGas: 2n * GWEI + 1n }, // tip under +10%
    ]) {
      const r = await n.raw('eth_sendRawTransaction', [await signed(2, { nonce: base + 1, value: 2n, ...fees })]);
      assert.deepEqual(r.error, { code: -32000, message: 'replacement transaction underpriced' });
    }
    const newHash = await send(await signed(2, { nonce: base + 1, value: 3n, maxFeePerGas: 11n * GWEI, maxPriorityFeePerGas: (22n * GWEI) / 10n }));
    const queued = (await n.rpc('txpool_contentFrom', [ADDRS[2]])).queued;
    assert.deepEqual(Object.keys(queued), [String(base + 1)]);
    assert.equal(queued[String(base + 1)].hash, newHash);
    assert.equal(await n.rpc('debug_getRawTransaction', [oldHash]), '0x', 'replaced transaction is gone');

    // A legacy replacement compares its gas price against both fees.
    const r = await n.raw('eth_sendRawTransaction', [await signed(2, { nonce: base + 1, gasPrice: 12n * GWEI })]);
    assert.equal(r.error?.message, 'replacement transaction underpriced');

    await send(await signed(2, { nonce: base }));
    const mined = await n.rpc('eth_getTransactionReceipt', [newHash]);
    assert.equal(mined.status, '0x1');
    const tx = await n.rpc('eth_getTransactionByHash', [newHash]);
    assert.equal(tx.value, '0x3');
  });

  test('with automine off, executable transactions are pending until a block is mined', async () => {
    await n.node.miner.setAutomine(false);
    try {
      const base = await nonceOf(0);
      const rawA = await signed(0, { nonce: base });
      const a = await send(rawA);
      const b = await send(await signed(0, { nonce: base + 1 }));
      const c = await send(await signed(0, { nonce: base + 3 }));
      assert.deepEqual(await status(), { pending: '0x2', queued: '0x1' });
      assert.equal(await n.rpc('eth_getTransactionCount', [ADDRS[0], 'pending']), '0x' + (base + 2).toString(16));
      const content = await n.rpc('txpool_content');
      const sender = getAddress(ADDRS[0]);
      assert.deepEqual(Object.keys(content.pending[sender]), [String(base), String(base + 1)]);
      assert.deepEqual(Object.keys(content.queued[sender]), [String(base + 3)]);
      assert.equal(await n.rpc('debug_getRawTransaction', [a]), rawA, 'pooled transactions have their raw form too');

      const block = await n.node.miner.mineNow();
      assert.deepEqual(
        block.txs.map((t) => t.hashHex),
        [a, b],
      );
      assert.deepEqual(await status(), { pending: '0x0', queued: '0x1' });
      // Filling the gap makes the queued one pending; the next block takes both.
      const gap = await send(await signed(0, { nonce: base + 2 }));
      assert.deepEqual(await status(), { pending: '0x2', queued: '0x0' });
      const next = await n.node.miner.mineNow();
      assert.deepEqual(
        next.txs.map((t) => t.hashHex),
        [gap, c],
      );
    } finally {
      await n.node.miner.setAutomine(true);
    }
  });

  test('with interval mining, pending transactions wait for the next tick; queued ones stay', async () => {
    await n.node.miner.setAutomine(false);
    const base = await nonceOf(0);
    const mined = new Promise<void>((resolve) => n.node.events.once('block', () => resolve()));
    try {
      const queued = await send(await signed(0, { nonce: base + 1 }));
      const ready = await send(await signed(0, { nonce: base }));
      assert.deepEqual(await status(), { pending: '0x2', queued: '0x0' });
      await send(await signed(0, { nonce: base + 3 }));
      n.node.miner.setIntervalMining(50);
      await mined;
      assert.equal((await n.rpc('eth_getTransactionReceipt', [ready])).status, '0x1');
      assert.equal((await n.rpc('eth_getTransactionReceipt', [queued])).status, '0x1');
      assert.deepEqual(await status(), { pending: '0x0', queued: '0x1' });
    } finally {
      n.node.miner.setIntervalMining(0);
      await n.node.miner.setAutomine(true);
    }
    // Automine leaves the queued one alone until its gap is filled.
    assert.deepEqual(await status(), { pending: '0x0', queued: '0x1' });
    await send(await signed(0, { nonce: base + 2 }));
    assert.deepEqual(await status(), { pending: '0x0', queued: '0x0' });
  });

  test('dropping a transaction opens a gap: the ones after it become queued', async () => {
    await n.node.miner.setAutomine(false);
    try {
      const base = await nonceOf(1);
      const hashes = [];
      for (let i = 0; i < 3; i++) hashes.push(await send(await signed(1, { nonce: base + i })));
      assert.deepEqual(await status(), { pending: '0x3', queued: '0x0' });
      assert.equal((await dropTransaction(n.node, hashes[1]))?.hashHex, hashes[1]);
      assert.deepEqual(await status(), { pending: '0x1', queued: '0x1' });
      const from = await n.rpc('txpool_contentFrom', [ADDRS[1]]);
      assert.deepEqual(Object.keys(from.pending), [String(base)]);
      assert.deepEqual(Object.keys(from.queued), [String(base + 2)]);
      const block = await n.node.miner.mineNow();
      assert.deepEqual(
        block.txs.map((t) => t.hashHex),
        [hashes[0]],
      );
      // Re-sending the dropped one fills the gap again.
      await send(await signed(1, { nonce: base + 1 }));
      assert.deepEqual(await status(), { pending: '0x2', queued: '0x0' });
      await n.node.miner.mineNow();
      assert.deepEqual(await status(), { pending: '0x0', queued: '0x0' });
    } finally {
      await n.node.miner.setAutomine(true);
    }
  });

  test('per-sender and global limits reject with clear errors', async () => {
    const saved = n.node.pool.snapshot();
    const limits = n.node.pool.limits;
    n.node.pool.restore([]);
    n.node.pool.setLimits({ perSender: 2, global: 3 });
    try {
      const b0 = await nonceOf(0);
      const b1 = await nonceOf(1);
      await send(await signed(0, { nonce: b0 + 10 }));
      await send(await signed(0, { nonce: b0 + 11 }));
      const full = await n.raw('eth_sendRawTransaction', [await signed(0, { nonce: b0 + 12 })]);
      assert.equal(full.error?.code, -32000);
      assert.equal(full.error?.message, `txpool is full for sender ${ADDRS[0].toLowerCase()}: at most 2 transactions per account`);
      // Replacing one of them is still allowed at the sender's limit.
      await send(await signed(0, { nonce: b0 + 11, maxFeePerGas: 20n * GWEI, maxPriorityFeePerGas: 2n * GWEI }));
      await send(await signed(1, { nonce: b1 + 10 }));
      const global = await n.raw('eth_sendRawTransaction', [await signed(1, { nonce: b1 + 11 })]);
      assert.equal(global.error?.message, 'txpool is full: at most 3 transactions');
      assert.deepEqual(await status(), { pending: '0x0', queued: '0x3' });
    } finally {
      n.node.pool.setLimits(limits);
      n.node.pool.restore(saved);
    }
  });

  test('a promoted transaction that fails is dropped and the ones behind it stay queued', async () => {
    const w = HDNodeWallet.fromPhrase('test test test test test test test test test test test junk', undefined, "m/44'/60'/0'/0/3");
    const sign = (nonce: number, value: bigint) =>
      w.signTransaction({ chainId: 984, to: ADDRS[2], value, gasLimit: 21_000n, nonce, maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI, type: 2 });
    const dropped: Array<[string, string]> = [];
    const onDrop = (p: { hashHex: string }, why: string) => dropped.push([p.hashHex, why]);
    n.node.events.on('dropped', onDrop);
    try {
      const q1 = await send(await sign(1, parseEther('6000')));
      const q2 = await send(await sign(2, 1n));
      const first = await send(await sign(0, parseEther('5000')));
      assert.equal((await n.rpc('eth_getTransactionReceipt', [first])).status, '0x1');
      assert.equal(await n.rpc('eth_getTransactionReceipt', [q1]), null);
      assert.equal(dropped.length, 1);
      assert.equal(dropped[0][0], q1);
      assert.match(dropped[0][1], /insufficient funds/);
      const from = await n.rpc('txpool_contentFrom', [w.address]);
      assert.deepEqual(Object.keys(from.pending), []);
      assert.equal(from.queued['2'].hash, q2, 'still waiting behind the new gap');
    } finally {
      n.node.events.off('dropped', onDrop);
    }
  });

  test('contract creations are summarised as such, and param errors name the parameter', async () => {
    const base = await nonceOf(2);
    await send(await signed(2, { nonce: base + 4, to: null, data: '0x6000', gasLimit: 60_000n }));
    const inspect = await n.rpc('txpool_inspect');
    assert.equal(inspect.queued[getAddress(ADDRS[2])][String(base + 4)], 'contract creation: 1 wei + 60000 gas × 10000000000 wei');
    const bad = await n.raw('txpool_contentFrom', ['0x1234']);
    assert.equal(bad.error?.code, -32602);
    assert.match(bad.error!.message, /argument 0/);
  });
});
