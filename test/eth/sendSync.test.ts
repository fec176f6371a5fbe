/**
 * EIP-7966 eth_sendRawTransactionSync / eth_sendTransactionSync: the receipt in the answer, through
 * viem's sendRawTransactionSync / sendTransactionSync actions; the timeout's error (code 4, the
 * hash as data) under manual mining; interval mining; a dropped transaction; bad params.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createPublicClient, createWalletClient, defineChain, http, parseEther, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { syncTimeout } from '../../src/chain/pool/sendSync.js';
import { ADDRS, KEYS, startTestNode, type TestNode } from '../support/node.js';

const chain = defineChain({
  id: 984,
  name: 'node-rpc',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: ['http://127.0.0.1'] } },
});
const signer = privateKeyToAccount(KEYS[2]);

function clients(url: string) {
  return {
    pub: createPublicClient({ chain, transport: http(url) }),
    local: createWalletClient({ chain, transport: http(url), account: signer }),
    node: createWalletClient({ chain, transport: http(url), account: ADDRS[0] }),
  };
}

/** A signed transfer from KEYS[2] with the next nonce (plus `skip`). */
async function signedTransfer(url: string, skip = 0): Promise<Hex> {
  const { pub, local } = clients(url);
  const nonce = (await pub.getTransactionCount({ address: signer.address, blockTag: 'pending' })) + skip;
  const req = await local.prepareTransactionRequest({ to: ADDRS[1], value: 1n, nonce, gas: 21_000n, chain, account: signer });
  return local.signTransaction(req);
}

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500 && !(await check()); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(await check(), 'condition not reached');
}

describe('eth_sendRawTransactionSync / eth_sendTransactionSync (EIP-7966)', () => {
  let n: TestNode;
  before(async () => {
    n = await startTestNode();
  });
  after(() => n.close());

  test('automine: viem sendRawTransactionSync and sendTransactionSync get the mined receipt', async () => {
    const { pub, local, node } = clients(n.url);
    const raw = await signedTransfer(n.url);
    const r1 = await local.sendRawTransactionSync({ serializedTransaction: raw });
    assert.equal(r1.status, 'success');
    assert.deepEqual(r1, await pub.getTransactionReceipt({ hash: r1.transactionHash }));

    const r2 = await node.sendTransactionSync({ to: ADDRS[1], value: parseEther('1'), chain, account: ADDRS[0] });
    assert.equal(r2.status, 'success');
    assert.equal(r2.from.toLowerCase(), ADDRS[0].toLowerCase());
    assert.deepEqual(r2, await pub.getTransactionReceipt({ hash: r2.transactionHash }));
    // A local account signs and goes through eth_sendRawTransactionSync.
    const r3 = await local.sendTransactionSync({ to: ADDRS[1], value: 5n, chain, account: signer, timeout: 10_000 });
    assert.equal(r3.status, 'success');
    // The raw answer is eth_getTransactionReceipt's, field for field.
    const raw4 = await signedTransfer(n.url);
    const receipt = await n.rpc('eth_sendRawTransactionSync', [raw4, 5000]);
    assert.deepEqual(receipt, await n.rpc('eth_getTransactionReceipt', [receipt.transactionHash]));
  });

  test('manual mining: past the timeout, error 4 with the hash as data, the transaction still pending; a block ends a wait', async () => {
    await n.rpc('evm_setAutomine', [false]);
    try {
      const raw = await signedTransfer(n.url);
      const late = await n.raw('eth_sendRawTransactionSync', [raw, 50]);
      assert.equal(late.error?.code, 4);
      assert.equal(late.error?.message, 'Transaction confirmation timeout');
      const hash = late.error?.data as string;
      assert.match(hash, /^0x[0-9a-f]{64}$/);
      assert.equal((await n.rpc('eth_getTransactionByHash', [hash])).blockNumber, null);

      // A second wait (QUANTITY timeout) ends when a block takes both.
      const raw2 = await signedTransfer(n.url);
      const waiting = n.rpc('eth_sendRawTransactionSync', [raw2, '0x7530']);
      await until(async () => (await n.rpc('txpool_status')).pending === '0x2');
      await n.rpc('evm_mine', []);
      const receipt = await waiting;
      assert.equal(receipt.status, '0x1');
      assert.deepEqual(receipt, await n.rpc('eth_getTransactionReceipt', [receipt.transactionHash]));
      assert.notEqual((await n.rpc('eth_getTransactionReceipt', [hash])), null);
    } finally {
      await n.rpc('evm_setAutomine', [true]);
    }
  });

  test('a transaction dropped from the pool ends the wait at once, naming it', async () => {
    await n.rpc('evm_setAutomine', [false]);
    try {
      const waiting = n.raw('eth_sendTransactionSync', [{ from: ADDRS[0], to: ADDRS[1], value: '0x1' }]);
      await until(async () => (await n.rpc('txpool_status')).pending === '0x1');
      const content = await n.rpc('txpool_content');
      const hash = Object.values(content.pending[ADDRS[0]] as Record<string, { hash: string }>)[0].hash;
      await n.rpc('anvil_dropTransaction', [hash]);
      const r = await waiting;
      assert.equal(r.error?.code, -32000);
      assert.match(r.error!.message, new RegExp(`transaction ${hash} left the pool without being mined`));
    } finally {
      await n.rpc('evm_setAutomine', [true]);
    }
  });

  test('bad params are -32602 naming them; a failing submit is the eth_sendRawTransaction error', async () => {
    const raw = await signedTransfer(n.url);
    for (const bad of ['soon', -1, 1.5]) {
      const r = await n.raw('eth_sendRawTransactionSync', [raw, bad]);
      assert.equal(r.error?.code, -32602, JSON.stringify(bad));
      assert.match(r.error!.message, /argument 1/);
    }
    const noFrom = await n.raw('eth_sendTransactionSync', [{ to: ADDRS[1] }]);
    assert.equal(noFrom.error?.code, -32602);
    assert.match(noFrom.error!.message, /missing "from"/);
    const first = await n.raw('eth_sendRawTransactionSync', [raw]);
    assert.equal(first.result.status, '0x1');
    const again = await n.raw('eth_sendRawTransactionSync', [raw]);
    const plain = await n.raw('eth_sendRawTransaction', [raw]);
    assert.deepEqual(again.error, plain.error);
  });

  test("the timeout: anvil's 30 s when absent or 0, and at most 30 s", () => {
    assert.equal(syncTimeout(undefined), 30_000);
    assert.equal(syncTimeout(0), 30_000);
    assert.equal(syncTimeout(250), 250);
    assert.equal(syncTimeout(600_000), 30_000);
  });
});

describe('eth_sendRawTransactionSync with interval mining', () => {
  let n: TestNode;
  before(async () => {
    n = await startTestNode({ mining: { auto: false, intervalMs: 100 } });
  });
  after(() => n.close());

  test('answers the receipt once the next interval block holds it', async () => {
    const { local, pub } = clients(n.url);
    const raw = await signedTransfer(n.url);
    const r = await local.sendRawTransactionSync({ serializedTransaction: raw, timeout: 30_000 });
    assert.equal(r.status, 'success');
    assert.ok(r.blockNumber >= 1n);
    assert.deepEqual(r, await pub.getTransactionReceipt({ hash: r.transactionHash }));
  });
});
