import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Wallet, type TransactionRequest } from 'ethers';
import { ADDRS, KEYS, startTestNode, type TestNode } from '../support/node.js';

describe('transaction admission errors carry geth messages with -32000', () => {
  let n: TestNode;
  const w = new Wallet(KEYS[1]);
  const base: TransactionRequest = { to: ADDRS[2], value: 1n, gasLimit: 21000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n, chainId: 984n, type: 2 };
  const send = async (tx: TransactionRequest) => n.raw('eth_sendRawTransaction', [await w.signTransaction(tx)]);

  before(async () => {
    n = await startTestNode();
  });
  after(() => n.close());

  test('accepted once, then already known', async () => {
    const signed = await w.signTransaction({ ...base, nonce: 0 });
    const first = await n.raw('eth_sendRawTransaction', [signed]);
    assert.equal(first.error, undefined);
    const again = await n.raw('eth_sendRawTransaction', [signed]);
    assert.equal(again.error!.code, -32000);
    assert.equal(again.error!.message, 'already known');
  });

  test('nonce too low', async () => {
    const r = await send({ ...base, nonce: 0, value: 2n });
    assert.equal(r.error!.code, -32000);
    assert.match(r.error!.message, /^nonce too low/);
  });

  test('insufficient funds for gas * price + value', async () => {
    const r = await send({ ...base, nonce: 1, value: 10n ** 30n });
    assert.equal(r.error!.code, -32000);
    assert.match(r.error!.message, /^insufficient funds for gas \* price \+ value/);
  });

  test('intrinsic gas too low', async () => {
    const r = await send({ ...base, nonce: 1, gasLimit: 20000n });
    assert.equal(r.error!.code, -32000);
    assert.match(r.error!.message, /^intrinsic gas too low/);
  });

  test('max fee per gas less than block base fee', async () => {
    const r = await send({ ...base, nonce: 1, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n });
    assert.equal(r.error!.code, -32000);
    assert.match(r.error!.message, /^max fee per gas less than block base fee/);
  });

  test('invalid chain id', async () => {
    const r = await send({ ...base, nonce: 1, chainId: 1n });
    assert.equal(r.error!.code, -32000);
    assert.match(r.error!.message, /invalid chain id/);
  });

  test('malformed raw transactions are clear errors, not crashes', async () => {
    for (const raw of ['0x', '0x02', '0xf8', '0x' + 'ff'.repeat(40)]) {
      const r = await n.raw('eth_sendRawTransaction', [raw]);
      assert.ok(r.error, raw);
      assert.equal(r.error!.code, -32000, raw);
    }
    const notHex = await n.raw('eth_sendRawTransaction', ['0xzz']);
    assert.equal(notHex.error!.code, -32602);
    assert.equal(await n.rpc('eth_chainId'), '0x3d8');
  });

  test('a future nonce waits in the pool until the gap is filled', async () => {
    const gap = await send({ ...base, nonce: 2 });
    assert.equal(gap.error, undefined);
    const hash = gap.result as string;
    assert.equal(await n.rpc('eth_getTransactionReceipt', [hash]), null);
    assert.equal(await n.rpc('eth_getTransactionCount', [ADDRS[1], 'pending']), '0x1');
    await send({ ...base, nonce: 1 });
    const receipt = await n.rpc('eth_getTransactionReceipt', [hash]);
    assert.equal(receipt.status, '0x1');
    assert.equal(await n.rpc('eth_getTransactionCount', [ADDRS[1], 'latest']), '0x3');
  });
});
